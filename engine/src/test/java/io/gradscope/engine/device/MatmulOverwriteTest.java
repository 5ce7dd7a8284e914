package io.gradscope.engine.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A matmul's output comes from the allocator uninitialized (a reused block still holds an earlier
 * tensor's values): the kernels write every element, the first k block storing rather than adding.
 * Each product here lands in a block just filled with NaN and released, and is compared with plain
 * float64 loops; edges in every direction, k over several blocks, k = 0.
 */
class MatmulOverwriteTest {
    @ParameterizedTest(name = "{0} x {1} @ {1} x {2}, {3}")
    @CsvSource({"131, 600, 177, FLOAT32", "128, 784, 512, FLOAT32", "13, 1, 33, FLOAT32", "200, 0, 90, FLOAT32",
        "131, 600, 77, FLOAT64", "200, 0, 90, FLOAT64"})
    void everyElementIsWrittenOverWhatTheBlockHeld(int m, int k, int n, DType dt) {
        Random r = new Random(m * 31 + k);
        double[] a = gaussian(r, m * k);
        double[] b = gaussian(r, k * n);
        for (int round = 0; round < 3; round++) {
            // A tensor of the output's size full of NaN, released: its block is the next one of that size.
            double[] nan = new double[m * n];
            java.util.Arrays.fill(nan, Double.NaN);
            Tensor dirty = Tensor.fromDoubles(dt, nan, m, n);
            dirty.storage().release();
            double[] c = Ops.matmul(Tensor.fromDoubles(dt, a, m, k), Tensor.fromDoubles(dt, b, k, n)).toDoubleArray();
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double want = 0;
                    double scale = 0;
                    for (int p = 0; p < k; p++) {
                        want += a[i * k + p] * b[p * n + j];
                        scale += Math.abs(a[i * k + p] * b[p * n + j]);
                    }
                    double tol = (dt == DType.FLOAT32 ? 1e-5 : 1e-13) * Math.max(1, scale);
                    assertEquals(want, c[i * n + j], tol, "(" + i + ", " + j + ") round " + round);
                }
            }
        }
    }

    /**
     * Transposed views are packed along their own paths (the xᵀ of a weight's gradient, the Wᵀ of an
     * input's): each layout, with whole slivers, a last sliver of fewer rows (12 does not divide 128,
     * 784 or 53) and of fewer columns, against plain float64 loops over the original arrays.
     */
    @ParameterizedTest(name = "{0} x {1} @ {1} x {2}, A transposed {3}, B transposed {4}")
    @CsvSource({"784, 128, 512, true, false", "128, 512, 784, false, true", "53, 300, 70, true, true",
        "128, 784, 512, false, false", "120, 40, 64, true, false"})
    void transposedViewsAreReadAsTheirOriginals(int m, int k, int n, boolean aT, boolean bT) {
        Random r = new Random(m * 17 + n);
        double[] a = gaussian(r, m * k); // stored k x m when aT, else m x k
        double[] b = gaussian(r, k * n); // stored n x k when bT, else k x n
        Tensor ta = aT ? Ops.transpose(Tensor.fromDoubles(DType.FLOAT32, a, k, m)) : Tensor.fromDoubles(DType.FLOAT32, a, m, k);
        Tensor tb = bT ? Ops.transpose(Tensor.fromDoubles(DType.FLOAT32, b, n, k)) : Tensor.fromDoubles(DType.FLOAT32, b, k, n);
        double[] c = Ops.matmul(ta, tb).toDoubleArray();
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double want = 0;
                double scale = 0;
                for (int p = 0; p < k; p++) {
                    double x = aT ? a[p * m + i] : a[i * k + p];
                    double y = bT ? b[j * k + p] : b[p * n + j];
                    want += x * y;
                    scale += Math.abs(x * y);
                }
                assertEquals(want, c[i * n + j], 1e-5 * Math.max(1, scale), "(" + i + ", " + j + ")");
            }
        }
    }

    private static double[] gaussian(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
    }
}
