package io.gradscope.engine.recompute;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The budget policy never exceeds its budget when it says it fits: chains (where activations
 * dominate) and random programs, budgets from a tenth of the plain peak to all of it.
 */
class BudgetTest {

    static String chain(int layers, int width, int batch, boolean residual) {
        StringBuilder s = new StringBuilder("x = input(" + batch + ", " + width + ")\n");
        for (int i = 1; i <= layers; i++) {
            s.append("W").append(i).append(" = param(").append(width).append(", ").append(width).append(")\n");
        }
        String prev = "x";
        for (int i = 1; i <= layers; i++) {
            String body = "tanh(" + prev + " @ W" + i + ")";
            s.append("h").append(i).append(" = ").append(residual ? prev + " + " + body : body).append('\n');
            prev = "h" + i;
        }
        return s.append("loss = mean(").append(prev).append(" * ").append(prev).append(")\n").toString();
    }

    static LongStream seeds() {
        return LongStream.range(0, 12);
    }

    @ParameterizedTest(name = "program {0}")
    @MethodSource("seeds")
    void aBudgetThatFitsIsNeverExceeded(long seed) {
        String src = seed < 4 ? chain(8 + (int) seed * 4, 16, 64, seed % 2 == 1) : FlatPrograms.generate(seed);
        Program p = Program.parse("budget.grad", src);
        RunOptions options = new RunOptions(DType.FLOAT64, seed, Map.of());
        long plain = p.plan(options, RematPolicy.NONE, true).predictedPeak();
        int fits = 0;
        for (double f : new double[] {0.1, 0.3, 0.5, 0.7, 0.85, 1.0}) {
            long budget = (long) (plain * f);
            RematPolicy policy = RematPolicy.budget(budget);
            RematPlanner.Planned planned = p.plan(options, policy, true);
            ProgramRun r = p.run(options, new MemoryOptions(policy, false), (a, b, c) -> { });
            long peak = r.timeline().peakBytes();
            if (planned.fits()) {
                fits++;
                assertTrue(peak <= budget, "seed " + seed + ": budget " + budget + " said to fit, measured " + peak + "\n" + src);
            } else {
                assertTrue(planned.predictedPeak() > budget, "seed " + seed + ": does not fit, yet predicts " + planned.predictedPeak());
            }
        }
        assertTrue(fits > 0, "the plain peak itself fits");
        if (seed < 4) {
            assertTrue(p.plan(options, RematPolicy.budget((long) (plain * 0.8)), true).fits(),
                    "a chain fits in 80% of its plain peak by recomputing");
            assertFalse(p.plan(options, RematPolicy.budget(plain / 20), true).fits(), "no chain fits in 5%");
        }
    }
}
