package io.gradscope.engine.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The row kernels' outputs come from the allocator uninitialized (a reused block still holds an
 * earlier tensor's values): LayerNorm's output, x̂ and dx, attention's weights and their VJP. Here each
 * lands in a block just filled with NaN and released, and the results are compared with LayerNorm
 * and its VJP written out in float64 loops, and with the same attention run on fresh memory.
 */
class RowKernelsOverwriteTest {
    private static final double EPS = 1e-5;

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT32", "FLOAT64"})
    void everyElementIsWrittenOverWhatTheBlockHeld(DType dt) {
        int rows = 64;
        int d = 300; // 76.8 KB in float32: large enough for the allocator's reused size classes
        Random r = new Random(11);
        double[] x = gaussian(r, rows * d);
        double[] w = gaussian(r, d);
        double[] b = gaussian(r, d);
        double[] g = gaussian(r, rows * d);
        for (int round = 0; round < 2; round++) {
            dirty(dt, rows * d, 4);
            Tensor tx = Tensor.fromDoubles(dt, x, rows, d).setRequiresGrad(true);
            Tensor tw = Tensor.fromDoubles(dt, w, d).setRequiresGrad(true);
            Tensor tb = Tensor.fromDoubles(dt, b, d).setRequiresGrad(true);
            Tensor y = Ops.layerNorm(tx, tw, tb, EPS);
            dirty(dt, rows * d, 4);
            Backward.run(Ops.sum(Ops.mul(y, Tensor.fromDoubles(dt, g, rows, d))));
            double[] gy = y.toDoubleArray();
            double[] gdx = tx.grad().toDoubleArray();
            double[] gdw = tw.grad().toDoubleArray();
            double[] gdb = tb.grad().toDoubleArray();
            double tol = dt == DType.FLOAT32 ? 2e-4 : 1e-10;
            double[] dw = new double[d];
            double[] db = new double[d];
            for (int i = 0; i < rows; i++) {
                double mean = 0;
                for (int j = 0; j < d; j++) {
                    mean += x[i * d + j];
                }
                mean /= d;
                double var = 0;
                for (int j = 0; j < d; j++) {
                    var += (x[i * d + j] - mean) * (x[i * d + j] - mean);
                }
                double rstd = 1 / Math.sqrt(var / d + EPS);
                double[] h = new double[d];
                double mg = 0;
                double mgh = 0;
                for (int j = 0; j < d; j++) {
                    h[j] = (x[i * d + j] - mean) * rstd;
                    assertEquals(h[j] * w[j] + b[j], gy[i * d + j], tol * 10, "y(" + i + ", " + j + ") round " + round);
                    double gw = g[i * d + j] * w[j];
                    mg += gw / d;
                    mgh += gw * h[j] / d;
                    dw[j] += g[i * d + j] * h[j];
                    db[j] += g[i * d + j];
                }
                for (int j = 0; j < d; j++) {
                    double want = rstd * (g[i * d + j] * w[j] - mg - h[j] * mgh);
                    assertEquals(want, gdx[i * d + j], tol * 10, "dx(" + i + ", " + j + ") round " + round);
                }
            }
            for (int j = 0; j < d; j++) {
                assertEquals(dw[j], gdw[j], tol * rows, "dw " + j);
                assertEquals(db[j], gdb[j], tol * rows, "db " + j);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT32", "FLOAT64"})
    void attentionWeightsAndTheirVjpAreWrittenOverWhatTheBlockHeld(DType dt) {
        // 2 heads x 96 queries x 96 keys: the weights are 73.7 KB in float32, a reused size class.
        Random r = new Random(5);
        double[] q = gaussian(r, 2 * 96 * 16);
        double[] k = gaussian(r, 2 * 96 * 16);
        double[] v = gaussian(r, 2 * 96 * 16);
        double[][] fresh = attention(dt, q, k, v, false);
        double[][] dirty = attention(dt, q, k, v, true);
        for (int i = 0; i < fresh.length; i++) {
            for (int j = 0; j < fresh[i].length; j++) {
                assertEquals(fresh[i][j], dirty[i][j], 0.0, "result " + i + " element " + j);
            }
        }
    }

    /** The output and the gradients of q, k, v of causal attention, with the weights' blocks dirtied first or not. */
    private static double[][] attention(DType dt, double[] q, double[] k, double[] v, boolean dirtyFirst) {
        Tensor tq = Tensor.fromDoubles(dt, q, 2, 96, 16).setRequiresGrad(true);
        Tensor tk = Tensor.fromDoubles(dt, k, 2, 96, 16).setRequiresGrad(true);
        Tensor tv = Tensor.fromDoubles(dt, v, 2, 96, 16).setRequiresGrad(true);
        if (dirtyFirst) {
            dirty(dt, 2 * 96 * 96, 6);
        }
        Tensor y = Ops.attention(tq, tk, tv, true);
        if (dirtyFirst) {
            dirty(dt, 2 * 96 * 96, 6);
        }
        Backward.run(Ops.sum(Ops.mul(y, y)));
        double[][] out = {y.toDoubleArray(), tq.grad().toDoubleArray(), tk.grad().toDoubleArray(), tv.grad().toDoubleArray()};
        for (double[] o : out) {
            for (double x : o) {
                org.junit.jupiter.api.Assertions.assertTrue(Double.isFinite(x), "a NaN left from a reused block");
            }
        }
        return out;
    }

    /** {@code count} tensors of {@code n} elements full of NaN, released: the next ones of that size reuse their blocks. */
    private static void dirty(DType dt, int n, int count) {
        double[] nan = new double[n];
        Arrays.fill(nan, Double.NaN);
        // All made before any is released: a block released is the next one taken.
        Tensor[] held = new Tensor[count];
        for (int i = 0; i < count; i++) {
            held[i] = Tensor.fromDoubles(dt, nan, n);
        }
        for (Tensor t : held) {
            t.storage().release();
        }
    }

    private static double[] gaussian(Random r, int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = r.nextGaussian();
        }
        return v;
    }
}
