package io.gradscope.engine.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * batch_norm in training mode on float32 NCHW runs the CPU's per-channel kernels ({@link TrainingBatchNorm}):
 * its output and gradients equal the float64 composition's (which no kernel serves) to float32
 * precision, a channel far from zero included; its gradients equal float64 central differences of
 * the float64 loss; a transposed input (copied for the kernels) gives the same.
 */
class BatchNormTrainingKernelTest {
    private static final int[] X = {2, 3, 4, 5};
    private static final double EPS = 1e-5;

    /** x's values: channel 1 centred at 100 with a spread of about 1, so the statistics' precision shows. */
    private static double[] xValues() {
        double[] v = new double[120];
        for (int i = 0; i < v.length; i++) {
            int ch = i / 20 % 3;
            v[i] = (float) ((ch == 1 ? 100 : 0.5 * ch) + Math.sin(0.7 * i + 0.3) * (1 + i % 3));
        }
        return v;
    }

    private static double[] rValues() {
        double[] v = new double[120];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) Math.cos(1.3 * i);
        }
        return v;
    }

    private static final double[] W = {1.5, -0.75, 0.5};
    private static final double[] B = {0.25, -0.5, 1.0};

    private static Op op() {
        return OpRegistry.create("batch_norm", Map.of("eps", EPS, "training", true));
    }

    /** Σ batch_norm(x)·r in this dtype; the tensors' gradients after a backward pass when asked. */
    private static Tensor[] run(DType dt, double[] x, double[] w, double[] b, boolean transposed, boolean backward) {
        Tensor xt;
        if (transposed) {
            double[] t = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                t[i / 20 * 20 + i % 5 * 4 + i / 5 % 4] = x[i];
            }
            xt = Tensor.fromDoubles(dt, t, 2, 3, 5, 4).viewTranspose(2, 3);
        } else {
            xt = Tensor.fromDoubles(dt, x, X);
        }
        xt.setRequiresGrad(backward);
        Tensor mean = Tensor.fromDoubles(dt, new double[] {2.5, 3.25, 2.75}, 3).setRequiresGrad(backward);
        Tensor var = Tensor.fromDoubles(dt, new double[] {0.5, 2.0, 1.25}, 3).setRequiresGrad(backward);
        Tensor wt = Tensor.fromDoubles(dt, w, 3).setRequiresGrad(backward);
        Tensor bt = Tensor.fromDoubles(dt, b, 3).setRequiresGrad(backward);
        Tensor y = Ops.apply(op(), xt, mean, var, wt, bt);
        Tensor loss = Ops.sum(Ops.mul(y, Tensor.fromDoubles(dt, rValues(), X)));
        if (backward) {
            Backward.run(loss);
        }
        return new Tensor[] {y, loss, xt, mean, var, wt, bt};
    }

    @Test
    void theKernelsRunForFloat32AndNotForFloat64() {
        Tensor x = Tensor.fromDoubles(DType.FLOAT32, xValues(), X);
        Tensor w = Tensor.fromDoubles(DType.FLOAT32, W, 3);
        Tensor b = Tensor.fromDoubles(DType.FLOAT32, B, 3);
        OpContext ctx = new OpContext(x);
        assertNotNull(TrainingBatchNorm.forward(ctx, x, w, b, EPS));
        assertEquals(2, ctx.savedTensors().size());
        OpContext f64 = new OpContext(x);
        assertNull(TrainingBatchNorm.forward(f64, x.to(DType.FLOAT64), w.to(DType.FLOAT64), b.to(DType.FLOAT64), EPS));
        assertEquals(0, f64.savedTensors().size());
    }

    @Test
    void float32KernelsEqualTheFloat64Composition() {
        for (boolean transposed : new boolean[] {false, true}) {
            Tensor[] f32 = run(DType.FLOAT32, xValues(), W, B, transposed, true);
            Tensor[] f64 = run(DType.FLOAT64, xValues(), W, B, false, true);
            close("y", f64[0].toDoubleArray(), f32[0].toDoubleArray(), 2e-6);
            String[] names = {"x", "running_mean", "running_var", "weight", "bias"};
            for (int i = 0; i < 5; i++) {
                close("gradient of " + names[i] + (transposed ? " (transposed)" : ""), f64[2 + i].grad().toDoubleArray(),
                        f32[2 + i].grad().toDoubleArray(), 2e-5);
            }
        }
    }

    @Test
    void float32GradientsEqualFloat64CentralDifferences() {
        Tensor[] f32 = run(DType.FLOAT32, xValues(), W, B, false, true);
        double h = 1e-6;
        double[][] args = {xValues(), W.clone(), B.clone()};
        int[] at = {2, 5, 6};
        for (int a = 0; a < 3; a++) {
            double[] analytic = f32[at[a]].grad().toDoubleArray();
            double[] numeric = new double[analytic.length];
            for (int i = 0; i < numeric.length; i++) {
                double keep = args[a][i];
                args[a][i] = keep + h;
                double up = run(DType.FLOAT64, args[0], args[1], args[2], false, false)[1].item();
                args[a][i] = keep - h;
                double down = run(DType.FLOAT64, args[0], args[1], args[2], false, false)[1].item();
                args[a][i] = keep;
                numeric[i] = (up - down) / (2 * h);
            }
            close("central differences, input " + a, numeric, analytic, 5e-5);
        }
    }

    private static void close(String what, double[] want, double[] got, double rel) {
        assertEquals(want.length, got.length, what);
        double scale = 0;
        for (double v : want) {
            scale = Math.max(scale, Math.abs(v));
        }
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], got[i], rel * scale, what + " element " + i);
        }
    }
}
