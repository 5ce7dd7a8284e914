package io.gradscope.engine.diagnose;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Two runs compared value by value: equal runs differ by nothing; float32 against float64 by float32's rounding. */
class RunDiffTest {
    private static ProgramRun run(Program p, DType dt) {
        return p.run(new RunOptions(dt, 0, Map.of()));
    }

    @Test
    void float32AgainstFloat64() {
        Program p = Program.load(Path.of("../assets/examples/mlp.grad"));
        List<RunDiff.Row> rows = RunDiff.of(run(p, DType.FLOAT32).trace(), run(p, DType.FLOAT64).trace());
        assertEquals(io.gradscope.engine.trace.TraceGraph.of(run(p, DType.FLOAT64).trace()).size(), rows.size(), "every value paired");
        for (RunDiff.Row r : rows) {
            assertTrue(r.valueDiff() < 1e-5, r.toString());
            assertTrue(Double.isNaN(r.gradientDiff()) || r.gradientDiff() < 1e-4, r.toString());
        }
        assertTrue(rows.get(0).score() > 1e-9, "float32 rounding shows: " + rows.get(0));
        assertTrue(rows.get(0).score() >= rows.get(rows.size() - 1).score(), "ranked");
        // The inputs are drawn in float64 and rounded once; computed values carry more rounding.
        RunDiff.Row x = rows.stream().filter(r -> r.title().equals("x")).findFirst().orElseThrow();
        RunDiff.Row logits = rows.stream().filter(r -> r.title().equals("logits")).findFirst().orElseThrow();
        assertTrue(logits.valueDiff() > x.valueDiff(), logits + " vs " + x);
    }

    /**
     * float32's rounding accumulates along a chain: a value carries the roundings of every op before
     * it, a gradient those of every backward step before it. On a 30-layer tanh chain the deepest
     * values differ most from float64 and, in the backward pass, the first layers' gradients differ
     * at least as much as the last ones. (On
     * the three-op MLP example every difference is within a few roundings, too shallow to rank.)
     */
    @Test
    void float32RoundingGrowsWithDepthInBothSweeps() {
        StringBuilder text = new StringBuilder("x = input(16, 32)\n");
        String prev = "x";
        for (int i = 1; i <= 30; i++) {
            text.append("W").append(i).append(" = param(32, 32)\nh").append(i).append(" = tanh(").append(prev).append(" @ W")
                    .append(i).append(")\n");
            prev = "h" + i;
        }
        text.append("loss = sum(").append(prev).append(" * ").append(prev).append(")\n");
        Program p = Program.parse("deep.grad", text.toString());
        Map<String, RunDiff.Row> byName = new java.util.HashMap<>();
        RunDiff.of(run(p, DType.FLOAT32).trace(), run(p, DType.FLOAT64).trace()).forEach(r -> byName.put(r.title(), r));
        double[] valueFirst = new double[2];
        double[] valueLast = new double[2];
        for (int i = 1; i <= 10; i++) {
            RunDiff.Row first = byName.get("h" + i);
            RunDiff.Row last = byName.get("h" + (20 + i));
            valueFirst[0] += first.valueDiff() / 10;
            valueLast[0] += last.valueDiff() / 10;
            valueFirst[1] += first.gradientDiff() / 10;
            valueLast[1] += last.gradientDiff() / 10;
        }
        assertTrue(valueLast[0] > 1.5 * valueFirst[0], "values: layers 21-30 " + valueLast[0] + " vs 1-10 " + valueFirst[0]);
        // The gradients' differences do not grow with depth as the values' do; which layers' are largest
        // depends on the GEMM's rounding (layers 1-10 against 21-30: 1.4 against 0.95 ×10⁻⁶ with the Vector
        // API's GEMM, 1.06 against 0.92 with OpenBLAS's Haswell kernels), so only the absence of growth is held.
        assertTrue(valueLast[1] < 1.25 * valueFirst[1], "gradients: layers 1-10 " + valueFirst[1] + " vs 21-30 " + valueLast[1]);
        // The first layers' values carry the fewest roundings, so the top row is a gradient or a late value.
        List<RunDiff.Row> ranked = RunDiff.of(run(p, DType.FLOAT32).trace(), run(p, DType.FLOAT64).trace());
        RunDiff.Row top = ranked.get(0);
        assertTrue(top.gradientDiff() >= top.valueDiff() || top.line() >= 2 * 20 + 1, top.toString());
    }

    @Test
    void aRunAgainstItselfDiffersByNothing() {
        Program p = Program.load(Path.of("../assets/examples/transformer_block.grad"));
        for (RunDiff.Row r : RunDiff.of(run(p, DType.FLOAT64).trace(), run(p, DType.FLOAT64).trace())) {
            assertEquals(0, r.score(), r.toString());
        }
    }

    @Test
    void anEditIsPairedByName() {
        Program a = Program.parse("a.grad", "x = param(3)\ny = tanh(x)\nL = sum(y * y)\n");
        Program b = Program.parse("b.grad", "x = param(3)\nz = x * 1\ny = tanh(z)\nL = sum(y * y)\n");
        ProgramRun ra = run(a, DType.FLOAT64);
        ProgramRun rb = run(b, DType.FLOAT64);
        List<RunDiff.Row> rows = RunDiff.of(ra.trace(), rb.trace());
        assertEquals(List.of("L", "x", "y"), rows.stream().map(RunDiff.Row::title).sorted().toList());
        rows.forEach(r -> assertEquals(0, r.score(), r.toString()));
        // Each row names its vertex in both graphs.
        var ga = io.gradscope.engine.trace.TraceGraph.of(ra.trace());
        var gb = io.gradscope.engine.trace.TraceGraph.of(rb.trace());
        for (RunDiff.Row r : rows) {
            assertEquals(r.title(), ga.vertex(r.vertexA()).title());
            assertEquals(r.title(), gb.vertex(r.vertexB()).title());
        }
    }

    @Test
    void relativeDifferenceIsMaxOverMax() {
        assertEquals(0.5, RunDiff.relative(Tensor.of(new double[] {1, 3}, 2), Tensor.of(new double[] {1, 2}, 2)), 1e-15);
    }

    @Test
    void aValueNotRetainedIsNoDifferenceButUnknown() {
        Tensor a = Tensor.of(new double[] {1, 3}, 2);
        Tensor dropped = io.gradscope.engine.trace.NotRetained.of(Tensor.of(new double[] {5, 7}, 2));
        assertTrue(Double.isNaN(RunDiff.relative(dropped, a)), "a stand-in is not compared as zeros");
        assertTrue(Double.isNaN(RunDiff.relative(a, dropped)));
    }
}
