package io.gradscope.engine.jacobian;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Jacobians and Hessians over small graphs, against central differences and closed forms. */
class JacobianTest {

    /** Central differences of f at x, column by column: (f.numel x x.numel). */
    static double[] numeric(Function<Tensor, Tensor> f, double[] x, int[] shape) {
        double eps = 1e-6;
        int n = x.length;
        double[][] cols = new double[n][];
        try (var off = GradMode.disable()) {
            for (int j = 0; j < n; j++) {
                double[] p = x.clone();
                double[] m = x.clone();
                p[j] += eps;
                m[j] -= eps;
                double[] fp = f.apply(Tensor.of(p, shape)).toDoubleArray();
                double[] fm = f.apply(Tensor.of(m, shape)).toDoubleArray();
                cols[j] = new double[fp.length];
                for (int i = 0; i < fp.length; i++) {
                    cols[j][i] = (fp[i] - fm[i]) / (2 * eps);
                }
            }
        }
        int m = n == 0 ? 0 : cols[0].length;
        double[] out = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                out[i * n + j] = cols[j][i];
            }
        }
        return out;
    }

    /** A small function with structure: a band from shifted slices, a reduction, a matmul. */
    private static Tensor f(Tensor x) {
        Tensor a = Ops.slice(x, 0, 0, 5);
        Tensor b = Ops.slice(x, 0, 1, 6);
        Tensor band = Ops.add(Ops.mul(Ops.sin(a), b), Ops.tanh(Ops.slice(x, 0, 2, 7)));
        Tensor m = Ops.reshape(Ops.slice(x, 0, 1, 7), 2, 3);
        Tensor mixed = Ops.sum(Ops.matmul(m, Ops.transpose(m)), new int[] {1}, false);
        return Ops.concat(0, band, mixed, Ops.reshape(Ops.logsumexp(x, new int[] {0}, false), 1));
    }

    @Test
    void denseByRowsAndColumnsEqualCentralDifferences() {
        double[] x0 = new Random(4).doubles(7, -1, 1).toArray();
        Tensor x = Tensor.of(x0, 7).setRequiresGrad(true);
        GraphJacobian j = GraphJacobian.of(f(x), x);
        double[] expected = numeric(JacobianTest::f, x0, new int[] {7});
        assertClose(expected, Jacobians.denseByRows(j).toDense(), 1e-6, 1e-8, "by rows");
        assertClose(expected, Jacobians.denseByColumns(j).toDense(), 1e-6, 1e-8, "by columns");
        Pattern p = j.pattern(Sparsity.GLOBAL);
        assertTrue(Pattern.nonzeros(Jacobians.denseByRows(j).toDense(), 8, 7).subsetOf(p));
        // Band rows: output i depends on x[i], x[i+1], x[i+2] only.
        for (int i = 0; i < 5; i++) {
            assertEquals(3, p.rowCount(i));
            assertTrue(p.contains(i, i) && p.contains(i, i + 1) && p.contains(i, i + 2));
        }
        for (Coloring.Kind k : new Coloring.Kind[] {Coloring.Kind.COLUMN, Coloring.Kind.ROW}) {
            Coloring c = Colorings.recolor(p, Colorings.best(p, k), 5);
            assertClose(expected, Jacobians.compressed(j, p, c).toDense(), 1e-6, 1e-8, "compressed " + c);
        }
    }

    @Test
    void anIntermediateNodeIsHeldIndependent() {
        // y = h * x + sum(h), h = exp(x): dy/dh = diag(x) + 1 (x held fixed), not dy/dx.
        double[] x0 = {0.3, -0.7, 1.1};
        Tensor x = Tensor.of(x0, 3).setRequiresGrad(true);
        Tensor h = Ops.exp(x);
        Tensor y = Ops.add(Ops.mul(h, x), Ops.sum(h));
        double[] dense = Jacobians.denseByRows(GraphJacobian.of(y, h)).toDense();
        double[] expected = {1 + x0[0], 1, 1, 1, 1 + x0[1], 1, 1, 1, 1 + x0[2]};
        assertClose(expected, dense, 1e-12, 0, "dy/dh");
        assertClose(expected, Jacobians.denseByColumns(GraphJacobian.of(y, h)).toDense(), 1e-12, 0, "dy/dh by JVPs");
        assertEquals(Pattern.dense(3, 3), GraphJacobian.of(y, h).pattern(Sparsity.GLOBAL));
    }

    @Test
    void unrelatedValuesGiveZeroAndAValueItsIdentity() {
        Tensor x = Tensor.of(new double[] {1, 2}, 2).setRequiresGrad(true);
        Tensor w = Tensor.of(new double[] {3, 4, 5}, 3).setRequiresGrad(true);
        Tensor y = Ops.exp(w);
        GraphJacobian none = GraphJacobian.of(y, x);
        assertEquals(0, none.pattern(Sparsity.GLOBAL).nnz());
        assertEquals(0, Jacobians.denseByRows(none).pattern().nnz());
        assertEquals(0, Jacobians.denseByColumns(none).pattern().nnz());
        GraphJacobian self = GraphJacobian.of(x, x);
        assertEquals(Pattern.identity(2), self.pattern(Sparsity.GLOBAL));
        assertClose(new double[] {1, 0, 0, 1}, Jacobians.denseByColumns(self).toDense(), 0, 0, "identity");
        GradscopeException e = assertThrows(GradscopeException.class,
                () -> GraphJacobian.of(y, Tensor.of(new double[] {1}, 1)));
        assertTrue(e.getMessage().contains("does not need a gradient"), e.getMessage());
    }

    @Test
    void theLocalPatternDropsInactiveReluUnitsAndStillDecompressesExactly() {
        Random r = new Random(9);
        Tensor x = Tensor.of(r.doubles(4 * 6, -1, 1).toArray(), 4, 6);
        Tensor w = Tensor.of(r.doubles(6 * 5, -1, 1).toArray(), 6, 5).setRequiresGrad(true);
        Tensor y = Ops.relu(Ops.matmul(x, w));
        GraphJacobian j = GraphJacobian.of(y, w);
        Pattern global = j.pattern(Sparsity.GLOBAL);
        Pattern local = j.pattern(Sparsity.LOCAL);
        assertTrue(local.subsetOf(global) && local.nnz() < global.nnz(), local + " vs " + global);
        SparseMatrix dense = Jacobians.denseByRows(j);
        assertEquals(dense.nonzeros(), local, "row (b, o) holds W[:, o] exactly where unit (b, o) is active");
        Coloring c = Colorings.color(local, Coloring.Kind.ROW, VertexOrder.LARGEST_FIRST);
        assertClose(dense.toDense(), Jacobians.compressed(j, local, c).toDense(), 1e-12, 0, "compressed on the local pattern");
        assertTrue(Colorings.color(global, Coloring.Kind.ROW, VertexOrder.NATURAL).count() == 4, "the batch: 4 rows per column");
    }

    @Test
    void rosenbrockHessianIsTridiagonalAndStarColoringRecoversIt() {
        // f = Σ 100 (x[i+1] − x[i]²)² + (1 − x[i])².
        int n = 30;
        double[] x0 = new Random(2).doubles(n, -1.5, 1.5).toArray();
        Tensor x = Tensor.of(x0, n).setRequiresGrad(true);
        Tensor head = Ops.slice(x, 0, 0, n - 1);
        Tensor tail = Ops.slice(x, 0, 1, n);
        Tensor d = Ops.sub(tail, Ops.mul(head, head));
        Tensor e = Ops.sub(Ops.constant(1, x), head);
        Tensor f = Ops.add(Ops.mul(Ops.sum(Ops.mul(d, d)), 100), Ops.sum(Ops.mul(e, e)));
        GraphJacobian h = Hessians.of(f, x);
        double[] expected = new double[n * n];
        for (int i = 0; i < n; i++) {
            if (i < n - 1) {
                expected[i * n + i] += 1200 * x0[i] * x0[i] - 400 * x0[i + 1] + 2;
                expected[i * n + i + 1] = -400 * x0[i];
                expected[(i + 1) * n + i] = -400 * x0[i];
            }
            if (i > 0) {
                expected[i * n + i] += 200;
            }
        }
        Pattern p = Hessians.pattern(h, Sparsity.GLOBAL);
        assertEquals(Matrices.band(n, 1, 1), p, "tridiagonal");
        Coloring c = Colorings.color(p, Coloring.Kind.STAR, VertexOrder.NATURAL);
        assertEquals(3, c.count());
        SparseMatrix hess = Jacobians.compressed(h, p, c);
        assertEquals(3, h.jvps(), "3 Hessian-vector products instead of " + n);
        assertClose(expected, hess.toDense(), 1e-10, 1e-9, "the Hessian");
        assertClose(expected, Jacobians.denseByRows(h).toDense(), 1e-10, 1e-9, "dense, reverse-over-reverse");
    }

    @Test
    void productsAndPatternsLeaveAnOpenTraceAlone() {
        try (Recorder rec = Recorder.start()) {
            Tensor x = Tensor.of(new double[] {0.5, -1, 2}, 3).setRequiresGrad(true);
            Tensor y = Ops.sum(Ops.relu(Ops.mul(x, x)));
            int events = rec.trace().events().size();
            GraphJacobian j = GraphJacobian.of(Ops.relu(x), x);
            int withJ = rec.trace().events().size();
            assertTrue(withJ > events, "the relu itself is the program's");
            Jacobians.denseByRows(j);
            Jacobians.denseByColumns(j);
            j.pattern(Sparsity.LOCAL);
            Jacobians.denseByColumns(Hessians.of(y, x));
            assertEquals(withJ, rec.trace().events().size(), "no event from the products");
        }
    }

    @Test
    void aLinearFunctionHasAZeroHessian() {
        Tensor x = Tensor.of(new double[] {1, 2, 3}, 3).setRequiresGrad(true);
        GraphJacobian h = Hessians.of(Ops.sum(Ops.mul(x, 2)), x);
        assertEquals(0, Hessians.pattern(h, Sparsity.GLOBAL).nnz());
        assertEquals(0, Jacobians.denseByColumns(h).pattern().nnz());
    }

    @Test
    void programValuesByNameWithMessagesForMistakes() {
        Program p = Program.parse("j.grad", "x = input(2, 3)\ny = labels(2, classes=3)\nW = param(3, 4)\n"
                + "h = tanh(x @ W)\nc = x * 2\nloss = sum(h)\n");
        RunOptions o = new RunOptions(DType.FLOAT64, 1, Map.of());
        GraphJacobian j = ProgramJacobians.of(p, o, "h", "W");
        assertEquals(8, j.rows());
        assertEquals(12, j.cols());
        assertEquals(24, j.pattern(Sparsity.GLOBAL).nnz(), "h[b, o] depends on W[:, o]: 3 entries per row");
        String[][] mistakes = {
            {"hh", "W", "the program has no value named 'hh' (did you mean 'h'?)"},
            {"h", "x", "'x' is an input without a gradient: declare it input(..., grad=True)"},
            {"h", "y", "'y' is a labels leaf (integers): it has no tangent"},
            {"h", "c", "'c' does not depend on any param or input(..., grad=True), so no derivative flows through it"},
            {"y", "W", "'y' holds integers (labels): it has no Jacobian"},
        };
        for (String[] m : mistakes) {
            GradscopeException e = assertThrows(GradscopeException.class, () -> ProgramJacobians.of(p, o, m[0], m[1]));
            assertEquals(m[2], e.getMessage());
        }
        ProgramJacobians.BadValue bad = assertThrows(ProgramJacobians.BadValue.class, () -> ProgramJacobians.hessian(p, o, "h", "W"));
        assertEquals("a Hessian needs a scalar, but 'h' has shape [2, 4]", bad.getMessage());
        assertEquals(ProgramJacobians.BadValue.OF, bad.which());
    }
}
