package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.UnaryKind;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Each unary kind is defined once, by {@link UnaryKind#apply}: the CPU kernels (double, float32
 * strided, float32 contiguous with the Vector API where the machine has it) give its values, and
 * the derivative kinds are the derivatives of their functions (central differences in float64).
 */
class UnaryKindTest {
    private static final double[] POWERS = {2, 1, 0.5, 3, -1.5};

    private static double[] inputs() {
        double[] special = {Double.NaN, 0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1e-30, -1e-30,
            1, -1, 20, 20.000001, 19.99, -20, 88.7, -88.7, 100, -100, 1e-8, 3, -3, 0.5, -0.5};
        Random r = new Random(47);
        double[] x = new double[special.length + 203];
        System.arraycopy(special, 0, x, 0, special.length);
        for (int i = special.length; i < x.length; i++) {
            x[i] = (r.nextDouble() * 2 - 1) * (i % 3 == 0 ? 30 : 4);
        }
        return x;
    }

    @Test
    void theDoubleKernelIsEachKindsFunctionBitForBit() {
        double[] x = inputs();
        for (UnaryKind k : UnaryKind.values()) {
            for (double p : k == UnaryKind.POW ? POWERS : new double[] {0}) {
                double[] y = new double[x.length];
                Elementwise.unary(k, p, x, y, x.length);
                for (int i = 0; i < x.length; i++) {
                    assertEquals(k.apply(x[i], p), y[i], k + "(" + x[i] + ") p=" + p); // bit for bit: −0 is not +0
                }
            }
        }
    }

    @Test
    void theFloatKernelsRoundEachKindsFunction() {
        double[] d = inputs();
        float[] x = new float[d.length];
        for (int i = 0; i < d.length; i++) {
            x[i] = (float) d[i];
        }
        for (UnaryKind k : UnaryKind.values()) {
            for (double p : k == UnaryKind.POW ? POWERS : new double[] {0}) {
                float[] strided = new float[2 * x.length];
                float[] spread = new float[2 * x.length];
                for (int i = 0; i < x.length; i++) {
                    spread[2 * i] = x[i];
                }
                FloatKernels.unaryPlain(k, p, spread, 0, 2, strided, 0, 2, x.length);
                float[] contiguous = new float[x.length];
                FloatKernels.unary(k, p, x, 0, 1, contiguous, 0, 1, x.length);
                for (int i = 0; i < x.length; i++) {
                    float want = (float) k.apply(x[i], p);
                    assertClose(k, x[i], want, strided[2 * i], "strided");
                    assertClose(k, x[i], want, contiguous[i], "contiguous");
                }
            }
        }
    }

    /** Bit for bit, except float32 exp (its own polynomial, within 2 ulp). */
    private static void assertClose(UnaryKind k, float x, float want, float got, String path) {
        String what = path + " " + k + "(" + x + ")";
        if (Float.isNaN(want) || Float.isInfinite(want) || want == 0) {
            assertEquals(want, got, what); // bit for bit: −0 is not +0
        } else {
            float ulps = k == UnaryKind.EXP ? 2 : 0;
            assertTrue(Math.abs(want - got) <= ulps * Math.ulp(want), what + ": " + want + " vs " + got);
        }
    }

    @Test
    void reluBackwardPassesTheGradientAtNaNOnEveryPath() {
        double[] d = inputs();
        int n = d.length;
        float[] x = new float[n];
        float[] g = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) d[i];
            g[i] = 1 + i % 7;
        }
        float[] contiguous = new float[n];
        FloatKernels.reluBackward(x, 0, 1, g, 0, 1, contiguous, 0, 1, n);
        float[] strided = new float[2 * n];
        float[] xs = new float[2 * n];
        float[] gs = new float[2 * n];
        for (int i = 0; i < n; i++) {
            xs[2 * i] = x[i];
            gs[2 * i] = g[i];
        }
        FloatKernels.reluBackward(xs, 0, 2, gs, 0, 2, strided, 0, 2, n);
        for (int i = 0; i < n; i++) {
            // PyTorch's threshold_backward: x ≤ 0 blocks the gradient, so a NaN passes it.
            float want = x[i] <= 0 ? 0f : g[i];
            assertEquals(want, contiguous[i], "contiguous at " + x[i]);
            assertEquals(want, strided[2 * i], "strided at " + x[i]);
        }
    }

    @Test
    void theDerivativeKindsAreTheDerivativesOfTheirFunctions() {
        UnaryKind[][] pairs = {{UnaryKind.SOFTPLUS_GRAD, UnaryKind.SOFTPLUS}, {UnaryKind.GELU_GRAD, UnaryKind.GELU},
            {UnaryKind.STEP, UnaryKind.RELU}, {UnaryKind.SIGN, UnaryKind.ABS}};
        double h = 1e-6;
        for (UnaryKind[] pair : pairs) {
            for (double x : inputs()) {
                if (!Double.isFinite(x) || Math.abs(x) < 1e-3 || Math.abs(x) > 50 || Math.abs(Math.abs(x) - 20) < 1e-3) {
                    continue; // kinks (0, the softplus threshold) and where the function overflows
                }
                double central = (pair[1].apply(x + h, 0) - pair[1].apply(x - h, 0)) / (2 * h);
                assertEquals(central, pair[0].apply(x, 0), 1e-6 * Math.max(1, Math.abs(central)), pair[0] + " at " + x);
            }
        }
    }
}
