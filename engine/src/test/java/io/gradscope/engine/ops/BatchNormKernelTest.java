package io.gradscope.engine.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import org.junit.jupiter.api.Test;

/**
 * batch_norm in inference mode on float32 NCHW runs the CPU's one-pass kernels (the affine map, and the
 * backward's per-channel sums); its output and all five gradients equal the float64 composition's
 * (which no kernel serves) to float32 precision, for every input needing its gradient or only x.
 */
class BatchNormKernelTest {
    private static final int[] X = {2, 3, 4, 5};
    private static final double EPS = 1e-5;

    @Test
    void float32KernelsEqualTheFloat64CompositionWithEveryGradient() {
        compare(new boolean[] {true, true, true, true, true}, false);
    }

    @Test
    void onlyTheInputsGradient() {
        compare(new boolean[] {true, false, false, false, false}, false);
    }

    @Test
    void onlyTheParametersGradients() {
        compare(new boolean[] {false, false, false, true, true}, false);
    }

    @Test
    void aTransposedInputGivesTheSameResults() {
        compare(new boolean[] {true, true, true, true, true}, true);
    }

    private static void compare(boolean[] grads, boolean transposed) {
        Result f32 = run(DType.FLOAT32, grads, transposed);
        Result f64 = run(DType.FLOAT64, grads, false);
        close("y", f64.y, f32.y);
        for (int i = 0; i < 5; i++) {
            assertEquals(grads[i], f32.grads[i] != null, "gradient " + i);
            if (grads[i]) {
                close("gradient " + i, f64.grads[i], f32.grads[i]);
            }
        }
    }

    private record Result(double[] y, double[][] grads) {
    }

    private static Result run(DType dtype, boolean[] grads, boolean transposed) {
        int c = X[1];
        double[] xs = values(2 * 3 * 4 * 5, 0.7, 3.0);
        Tensor x;
        if (transposed) {
            // the same values as x, laid out [N, C, W, H] and viewed back as [N, C, H, W]
            double[] t = new double[xs.length];
            for (int i = 0; i < xs.length; i++) {
                int w = i % 5;
                int h = i / 5 % 4;
                int nc = i / 20;
                t[nc * 20 + w * 4 + h] = xs[i];
            }
            x = Tensor.fromDoubles(dtype, t, 2, 3, 5, 4).viewTranspose(2, 3);
            x.setRequiresGrad(grads[0]);
        } else {
            x = Tensor.fromDoubles(dtype, xs, X).setRequiresGrad(grads[0]);
        }
        Tensor mean = Tensor.fromDoubles(dtype, new double[] {2.5, 3.25, 2.75}, c).setRequiresGrad(grads[1]);
        Tensor var = Tensor.fromDoubles(dtype, new double[] {0.5, 2.0, 1.25}, c).setRequiresGrad(grads[2]);
        Tensor w = Tensor.fromDoubles(dtype, new double[] {1.5, -0.75, 0.5}, c).setRequiresGrad(grads[3]);
        Tensor b = Tensor.fromDoubles(dtype, new double[] {0.25, -0.5, 1.0}, c).setRequiresGrad(grads[4]);
        Tensor y = Ops.batchNorm(x, mean, var, w, b, EPS);
        Tensor r = Tensor.fromDoubles(dtype, values(120, 1.3, 0), X);
        Backward.run(Ops.sum(Ops.mul(y, r)));
        Tensor[] in = {x, mean, var, w, b};
        double[][] g = new double[5][];
        for (int i = 0; i < 5; i++) {
            g[i] = in[i].grad() == null ? null : in[i].grad().toDoubleArray();
        }
        return new Result(y.toDoubleArray(), g);
    }

    /** Values spread around {@code centre}, exactly representable in float32's precision range. */
    private static double[] values(int n, double freq, double centre) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (centre + Math.sin(freq * i + 0.3) * (1 + i % 3));
        }
        return v;
    }

    private static void close(String what, double[] want, double[] got) {
        assertEquals(want.length, got.length, what);
        double scale = 0;
        for (double v : want) {
            scale = Math.max(scale, Math.abs(v));
        }
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], got[i], 2e-6 * scale, what + " element " + i);
        }
    }
}
