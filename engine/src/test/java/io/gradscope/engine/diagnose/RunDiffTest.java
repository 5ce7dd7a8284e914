package io.gradscope.engine.diagnose;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.program.Program;
import io.gradscope.engine.program.ProgramRun;
import io.gradscope.engine.program.RunOptions;
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
}
