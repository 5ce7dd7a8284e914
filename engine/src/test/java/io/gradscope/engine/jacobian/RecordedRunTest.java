package io.gradscope.engine.jacobian;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.scalar.ScalarExpansion;
import io.gradscope.engine.scalar.Value;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceEvent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The recorded-run API against independent computations: Jacobians keyed by the trace's ids
 * and Hessians against PyTorch's (gen_jacobians.py, the same references as
 * {@link JacobianConformanceTest}), asked of the one training step that was recorded; the scalar graph's backward against the tensor VJPs the
 * backward pass recorded and against central differences in float64; the coloring choice against
 * coloring both partitions by hand.
 */
class RecordedRunTest {
    private static final double RTOL = 1e-9;
    private static final double ATOL = 1e-12;

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> references() throws Exception {
        return JacobianConformanceTest.references();
    }

    private static ProgramRun run(Path dir) throws IOException {
        return Program.load(dir.resolve("program.grad")).run(JacobianConformanceTest.options(dir));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("references")
    void aRecordedRunsJacobianByTraceIdsEqualsPyTorch(String name, Path dir, String of, String wrt, Path ref) throws IOException {
        RecordedRun r = RecordedRun.of(run(dir).trace());
        double[] expected = Npy.readAnyOrder(ref).toDoubleArray();
        if (of.equals("hessian")) {
            GraphJacobian h = r.hessian(r.idOf(JacobianConformanceTest.lastName(dir)), r.idOf(wrt));
            Pattern pattern = Hessians.pattern(h, Sparsity.GLOBAL);
            Coloring star = new ColoringChoice(Coloring.Kind.STAR, ColoringChoice.BEST, 0).color(pattern);
            assertClose(expected, Jacobians.compressed(h, pattern, star).toDense(), RTOL, ATOL, name + ": star " + star);
            return;
        }
        RunJacobian j = r.jacobian(r.idOf(of), r.idOf(wrt), Sparsity.GLOBAL, ColoringChoice.CHEAPER);
        assertEquals(expected.length, (long) j.rows() * j.cols(), name + ": size");
        assertClose(expected, j.values().toDense(), RTOL, ATOL, name + ": compressed, " + j.coloring());
        assertTrue(Pattern.nonzeros(expected, j.rows(), j.cols()).subsetOf(j.pattern()), name + ": the pattern misses a nonzero");
        assertTrue(j.valid());
        assertEquals(j.coloring().count(), j.products(), name + ": one product per color");
        // A nonzero's path starts at wrt and ends at of; every value on it lies between the two.
        Pattern p = j.pattern();
        for (int i = 0; i < p.rows(); i++) {
            if (p.rowCount(i) > 0) {
                SortedSet<Long> via = j.path(i, p.row(i)[0]);
                assertTrue(via.contains(j.of()) && via.contains(j.wrt()), name);
                List<Long> between = j.between().stream().map(RunJacobian.Between::node).toList();
                via.stream().filter(v -> v != j.of() && v != j.wrt()).forEach(v -> assertTrue(between.contains(v), name));
                break;
            }
        }
    }

    @Test
    void theScalarGraphsBackwardEqualsEveryRecordedVjpAndCentralDifferences() throws IOException {
        Program p = Program.parse("small.grad", "x = param(2, 3)\nW = param(3, 2)\nh = tanh(x @ W)\ne = exp(h) * h\nloss = sum(e)\n");
        RunOptions f64 = new RunOptions(DType.FLOAT64, 3, Map.of());
        ProgramRun run = p.run(f64);
        RecordedRun r = RecordedRun.of(run.trace());
        int steps = 0;
        for (TraceEvent.BackwardStep b : run.trace().of(TraceEvent.BackwardStep.class)) {
            ScalarExpansion e = r.scalarBackward(b.node());
            if (r.value(b.node()).node().isLeaf()) {
                assertNull(e, "a leaf has nothing to expand");
                continue;
            }
            for (TraceEvent.Contribution c : b.contributions()) {
                double[] scalar = e.inputs().get(c.input()).stream().mapToDouble(Value::grad).toArray();
                assertClose(c.gradient().toDoubleArray(), scalar, 1e-12, 1e-12, b.op() + " input " + c.input());
            }
            steps++;
        }
        assertTrue(steps >= 4, "matmul, tanh, exp, mul, sum: " + steps);
        // The gradient of loss with respect to W: the sum node's scalars end in the objective, and
        // the matmul node's W scalars carry ∂loss/∂W, checked against central differences.
        long mm = run.trace().of(TraceEvent.OpForward.class).stream().filter(f -> f.op().equals("matmul")).findFirst().orElseThrow().node();
        double[] dW = r.scalarBackward(mm).inputs().get(1).stream().mapToDouble(Value::grad).toArray();
        double[] w = run.values().get("W").toDoubleArray();
        for (int k = 0; k < w.length; k++) {
            double h = 1e-6;
            double up = lossWith(p, f64, run, w, k, h);
            double down = lossWith(p, f64, run, w, k, -h);
            assertEquals((up - down) / (2 * h), dW[k], 1e-7, "dloss/dW[" + k + "]");
        }
    }

    private static double lossWith(Program p, RunOptions o, ProgramRun run, double[] w, int k, double h) {
        double[] moved = w.clone();
        moved[k] += h;
        Map<String, io.gradscope.engine.tensor.Tensor> in = Map.of("x", run.values().get("x"),
                "W", io.gradscope.engine.tensor.Tensor.of(moved, 3, 2));
        return p.forward(new RunOptions(o.dtype(), o.seed(), in)).item();
    }

    @Test
    void aRunThatKeptNoValuesIsRefusedAndAnUnknownIdIsNamed() {
        Program p = Program.parse("p.grad", "x = param(3)\ny = sum(sin(x))\n");
        RunOptions f64 = new RunOptions(DType.FLOAT64, 0, Map.of());
        ProgramRun bare = p.run(f64, new MemoryOptions(MemoryOptions.DEFAULT.policy(), false), (ph, d, t) -> { });
        RecordedRun r = RecordedRun.of(bare.trace());
        GradscopeException e = assertThrows(GradscopeException.class, () -> r.jacobian(r.idOf("y"), r.idOf("x")));
        assertTrue(e.getMessage().contains("kept no values"), e.getMessage());
        RecordedRun kept = RecordedRun.of(p.run(f64).trace());
        e = assertThrows(GradscopeException.class, () -> kept.value(-5));
        assertTrue(e.getMessage().contains("no value with id -5"), e.getMessage());
    }

    @Test
    void theCheaperColoringIsTheOneOfColumnsAndRowsWithFewerColors() {
        // A dense row over a diagonal: columns need n colors, rows 2.
        int n = 8;
        int[] ri = new int[2 * n];
        int[] ci = new int[2 * n];
        for (int k = 0; k < n; k++) {
            ri[k] = 0;
            ci[k] = k;
            ri[n + k] = k + 1;
            ci[n + k] = k;
        }
        Pattern p = Pattern.fromCoordinates(n + 1, n, ri, ci);
        ColoringChoice choice = ColoringChoice.CHEAPER;
        Coloring rows = choice.color(p, Coloring.Kind.ROW);
        Coloring columns = choice.color(p, Coloring.Kind.COLUMN);
        Coloring c = choice.color(p);
        assertEquals(Math.min(rows.count(), columns.count()), c.count());
        assertEquals(rows.count() <= columns.count() ? Coloring.Kind.ROW : Coloring.Kind.COLUMN, c.kind());
        assertTrue(Colorings.isValid(p, c));
        // Its transpose turns the choice around.
        Coloring t = choice.color(p.transpose());
        assertEquals(c.count(), t.count());
        assertEquals(Coloring.Kind.COLUMN, t.kind());
        assertThrows(GradscopeException.class, () -> new ColoringChoice(null, "sideways", 0));
        assertThrows(GradscopeException.class, () -> new ColoringChoice(null, ColoringChoice.BEST, -1));
    }
}
