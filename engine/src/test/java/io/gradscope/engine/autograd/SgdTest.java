package io.gradscope.engine.autograd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link Sgd#step}: each parameter becomes p − lr·∇p in its own storage, against the arithmetic done on copies in float64. */
class SgdTest {
    @ParameterizedTest(name = "{0}, {1} x 100")
    @CsvSource({"FLOAT32, 10", "FLOAT64, 10", "FLOAT32, 3001", "FLOAT64, 3001"})
    void eachParameterMovesAgainstItsGradientInPlace(DType dt, int rows) {
        Random r = new Random(3);
        // 1000 elements: whole vectors and a remainder for the vector kernel; 300,100: split over the pool.
        double[] w = gaussian(r, rows * 100);
        double[] x = gaussian(r, rows * 100);
        Tensor p = Tensor.fromDoubles(dt, w, rows, 100).setRequiresGrad(true);
        Tensor unused = Tensor.fromDoubles(dt, new double[] {1, 2}, 2).setRequiresGrad(true);
        Tensor storageBefore = p;
        double[] before = p.toDoubleArray();
        Backward.run(Ops.sum(Ops.mul(p, Tensor.fromDoubles(dt, x, rows, 100))));
        double[] grad = p.grad().toDoubleArray();
        Sgd.step(List.of(p, unused), 0.25);
        double[] after = p.toDoubleArray();
        double tol = dt == DType.FLOAT32 ? 1e-6 : 1e-15;
        for (int i = 0; i < after.length; i++) {
            assertEquals(before[i] - 0.25 * grad[i], after[i], tol * (1 + Math.abs(before[i])), "element " + i);
            assertEquals(x[i], grad[i], tol * (1 + Math.abs(x[i])), "the gradient of sum(p * x) is x");
        }
        assertSame(storageBefore.storage(), p.storage());
        assertArrayEquals(new double[] {1, 2}, unused.toDoubleArray(), "no gradient: left as it is");
    }

    @Test
    void aStridedParameterTakesTheUnfusedPath() {
        // A transposed view has no one-pass kernel: the product is made and added in place.
        Tensor base = Tensor.fromDoubles(DType.FLOAT32, new double[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor p = Ops.transpose(base);
        p.setGrad(Tensor.fromDoubles(DType.FLOAT32, new double[] {10, 20, 30, 40, 50, 60}, 3, 2));
        Sgd.step(List.of(p), 0.1);
        // p[i][j] = base[j][i]: 1 4 / 2 5 / 3 6, minus 0.1 · (10 20 / 30 40 / 50 60).
        assertArrayEquals(new double[] {0, 2, -1, 1, -2, 0}, p.toDoubleArray(), 1e-6);
        assertArrayEquals(new double[] {0, -1, -2, 2, 1, 0}, base.toDoubleArray(), 1e-6, "written through the view");
    }

    @Test
    void aMismatchedGradientOrRateIsRefused() {
        Tensor p = Tensor.fromDoubles(DType.FLOAT32, new double[] {1, 2}, 2);
        p.setGrad(Tensor.fromDoubles(DType.FLOAT32, new double[] {1, 2, 3}, 3));
        GradscopeException e = assertThrows(GradscopeException.class, () -> Sgd.step(List.of(p), 0.1));
        assertTrue(e.getMessage().contains("[2]") && e.getMessage().contains("[3]"), e.getMessage());
        assertThrows(GradscopeException.class, () -> Sgd.step(List.of(p), Double.NaN));
        assertArrayEquals(new double[] {1, 2}, p.toDoubleArray(), "untouched");
    }

    private static double[] gaussian(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
    }
}
