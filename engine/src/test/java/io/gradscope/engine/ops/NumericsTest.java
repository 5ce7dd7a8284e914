package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import org.junit.jupiter.api.Test;

/** The numerical behaviours PyTorch users rely on, each against values worked out by hand. */
class NumericsTest {

    @Test
    void reluAndAbsHaveSubgradientZeroAtZero() {
        Tensor x = Tensor.of(new double[] {-1, 0, 2}, 3).setRequiresGrad(true);
        Backward.run(Ops.sum(Ops.relu(x)));
        assertClose(new double[] {0, 0, 1}, x.grad().toDoubleArray(), 0, 0, "relu'");
        Backward.run(Ops.sum(Ops.abs(x)));
        assertClose(new double[] {-1, 0, 1}, x.grad().toDoubleArray(), 0, 0, "abs'");
    }

    @Test
    void amaxSplitsTheGradientEvenlyAmongTies() {
        Tensor x = Tensor.of(new double[] {1, 3, 3, 2, 5, 5, 5, 0}, 2, 4).setRequiresGrad(true);
        Backward.run(Ops.sum(Ops.amax(x, new int[] {1}, false)));
        assertClose(new double[] {0, 0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0}, x.grad().toDoubleArray(), 1e-15, 0, "ties");
    }

    @Test
    void softplusIsXAboveTheThresholdWithGradientOne() {
        Tensor x = Tensor.of(new double[] {20.5, 30}, 2).setRequiresGrad(true);
        Tensor y = Ops.softplus(x);
        assertClose(new double[] {20.5, 30}, y.toDoubleArray(), 0, 0, "softplus above 20");
        Backward.run(Ops.sum(y));
        assertClose(new double[] {1, 1}, x.grad().toDoubleArray(), 0, 0, "softplus' above 20");
    }

    @Test
    void causalAttentionHasNoNaNEvenWithLargeScores() {
        double[] big = new double[4 * 2];
        for (int i = 0; i < big.length; i++) {
            big[i] = (i % 2 == 0 ? 300 : -300) * (i + 1);
        }
        Tensor q = Tensor.of(big, 4, 2).setRequiresGrad(true);
        Tensor k = Tensor.of(big.clone(), 4, 2).setRequiresGrad(true);
        Tensor v = Tensor.of(new double[] {1, 2, 3, 4, 5, 6, 7, 8}, 4, 2).setRequiresGrad(true);
        Tensor o = Ops.attention(q, k, v, true);
        Backward.run(Ops.sum(o));
        for (Tensor t : new Tensor[] {o, q.grad(), k.grad(), v.grad()}) {
            for (double d : t.toDoubleArray()) {
                assertTrue(Double.isFinite(d), "non-finite value in " + t);
            }
        }
        // The first query sees only the first key: its output is exactly v[0].
        assertClose(new double[] {1, 2}, new double[] {o.get(0, 0), o.get(0, 1)}, 0, 0, "first row attends to itself");
    }

    @Test
    void layerNormOfInputsWithMeanThousandIsStableInFloat32() {
        double[] x = new double[64];
        for (int i = 0; i < x.length; i++) {
            x[i] = 1000 + ((i * 37) % 11 - 5) * 0.1;
        }
        Tensor w = Tensor.fromDoubles(DType.FLOAT32, filled(64, 1), 64);
        Tensor b = Tensor.fromDoubles(DType.FLOAT32, filled(64, 0), 64);
        Tensor y = Ops.layerNorm(Tensor.fromDoubles(DType.FLOAT32, x, 1, 64), w, b, 1e-5);
        // Reference in float64 on the float32-rounded inputs, two-pass.
        double mean = 0;
        double[] xf = new double[64];
        for (int i = 0; i < 64; i++) {
            xf[i] = (float) x[i];
            mean += xf[i] / 64;
        }
        double var = 0;
        for (double v : xf) {
            var += (v - mean) * (v - mean) / 64;
        }
        double[] expected = new double[64];
        for (int i = 0; i < 64; i++) {
            expected[i] = (xf[i] - mean) / Math.sqrt(var + 1e-5);
        }
        assertClose(expected, y.toDoubleArray(), 1e-5, 1e-5, "layer_norm at mean 1000");
    }

    private static double[] filled(int n, double v) {
        double[] d = new double[n];
        java.util.Arrays.fill(d, v);
        return d;
    }

    @Test
    void shapeErrorsSayWhichOpWhichShapesAndWhy() {
        Tensor a = Tensor.zeros(DType.FLOAT64, 32, 784);
        Tensor b = Tensor.zeros(DType.FLOAT64, 128, 10);
        GradscopeException e = assertThrows(GradscopeException.class, () -> Ops.matmul(a, b));
        assertEquals("'@' needs matching inner dimensions: [32, 784] @ [128, 10] (784 != 128)", e.getMessage());
        e = assertThrows(GradscopeException.class, () -> Ops.add(Tensor.zeros(DType.FLOAT64, 2, 3), Tensor.zeros(DType.FLOAT64, 4)));
        assertTrue(e.getMessage().contains("'+'") && e.getMessage().contains("[2, 3]") && e.getMessage().contains("[4]"), e.getMessage());
        e = assertThrows(GradscopeException.class, () -> Ops.sum(a, new int[] {2}, false));
        assertTrue(e.getMessage().startsWith("sum: axis 2 is out of range"), e.getMessage());
        e = assertThrows(GradscopeException.class, () -> Ops.reshape(a, 5, -1));
        assertTrue(e.getMessage().startsWith("reshape: cannot reshape [32, 784]"), e.getMessage());
        e = assertThrows(GradscopeException.class, () -> Ops.crossEntropy(Tensor.zeros(DType.FLOAT64, 2, 3), Tensor.ofLongs(new long[] {0, 3}, 2)));
        assertTrue(e.getMessage().contains("label 3 at index 1 is out of range for 3 classes"), e.getMessage());
        e = assertThrows(GradscopeException.class, () -> Ops.layerNorm(a, Tensor.zeros(DType.FLOAT64, 5), Tensor.zeros(DType.FLOAT64, 784), 1e-5));
        assertTrue(e.getMessage().contains("weight has shape [5]"), e.getMessage());
    }

    @Test
    void logSoftmaxOfHugeLogitsStaysFinite() {
        Tensor x = Tensor.of(new double[] {1e4, 0, -1e4}, 3);
        double[] y = Ops.logSoftmax(x, -1).toDoubleArray();
        assertClose(new double[] {0, -1e4, -2e4}, y, 1e-12, 0, "log_softmax");
    }
}
