package io.gradscope.engine.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The 3x3 stride-1 convolution's own kernel (Winograd's F(2x2, 3x3) on the CPU, float32) against the
 * direct convolution summed in float64 from the same float32 values: its value, its input gradient
 * (conv_transpose2d on the same kernel) and the weight and bias gradients beside them, for odd and
 * even planes, padding 0, 1 and 2, channel counts that are not multiples of a vector, batches of two.
 * Each element may differ from the float64 sum by a few float32 roundings of the sum of its terms'
 * magnitudes (Note [Winograd's rounding]). The small shapes run with {@code gradscope.conv=winograd}
 * (by default the kernel declines planes of fewer than 128 tiles); the last one is big enough anyway.
 * The value and gradient tests run again with {@code gradscope.conv=direct}: the direct kernel where
 * the machine has it (DirectConvTest), Winograd's or im2col's as by default where not.
 */
class WinogradConvTest {
    @AfterEach
    void clearSwitch() {
        System.clearProperty("gradscope.conv");
    }

    /** {n, c_in, c_out, h, w, padding}. */
    private static final int[][] SHAPES = {{1, 3, 4, 5, 7, 1}, {2, 5, 6, 8, 9, 1}, {1, 17, 19, 11, 6, 1}, {2, 4, 3, 6, 6, 0},
        {1, 3, 2, 5, 5, 2}, {1, 1, 1, 1, 1, 1}, {1, 33, 8, 7, 7, 1}, {1, 2, 5, 3, 4, 0}, {2, 70, 9, 13, 3, 1},
        {1, 3, 5, 24, 23, 1}};

    /** A bound of this many float32 roundings of the terms' absolute sum. */
    private static final double ROUNDINGS = 16 * Math.ulp(1f);

    private static float[] random(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return v;
    }

    private static Tensor f32(float[] v, int... shape) {
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i];
        }
        return Tensor.of(d, shape).to(DType.FLOAT32);
    }

    @ParameterizedTest
    @ValueSource(strings = {"winograd", "direct"})
    void valueAndGradientsEqualTheDirectSumInFloat64(String way) {
        // The direct kernel needs 16-lane vectors (AVX-512); on 8 lanes (-XX:UseAVX=2, an AVX2 CPU) only Winograd's runs.
        org.junit.jupiter.api.Assumptions.assumeTrue(way.equals("winograd")
                || jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.length() >= 16, "no direct kernel on 8-lane vectors");
        System.setProperty("gradscope.conv", way);
        Random r = new Random(32);
        for (int[] sh : SHAPES) {
            int n = sh[0], cin = sh[1], cout = sh[2], h = sh[3], w = sh[4], p = sh[5];
            int oh = h + 2 * p - 2;
            int ow = w + 2 * p - 2;
            float[] x = random(r, n * cin * h * w);
            float[] wt = random(r, cout * cin * 9);
            float[] bias = random(r, cout);
            float[] gy = random(r, n * cout * oh * ow);
            Tensor xt = f32(x, n, cin, h, w).setRequiresGrad(true);
            Tensor wtt = f32(wt, cout, cin, 3, 3).setRequiresGrad(true);
            Tensor bt = f32(bias, cout).setRequiresGrad(true);
            assertNotNull(xt.backend().conv3x3(xt, wtt, false, p, p, way), "the CPU has a 3x3 kernel for float32");
            Tensor y = Ops.conv2d(xt, wtt, bt, new int[] {1}, new int[] {p}, new int[] {1}, 1);
            Backward.run(Ops.sum(Ops.mul(y, f32(gy, n, cout, oh, ow))));
            double[] ey = new double[gy.length];
            double[] eyAbs = new double[gy.length];
            double[] gx = new double[x.length];
            double[] gxAbs = new double[x.length];
            double[] gw = new double[wt.length];
            double[] gwAbs = new double[wt.length];
            for (int b = 0; b < n; b++) {
                for (int co = 0; co < cout; co++) {
                    for (int a = 0; a < oh; a++) {
                        for (int c2 = 0; c2 < ow; c2++) {
                            int yi = ((b * cout + co) * oh + a) * ow + c2;
                            double sum = bias[co];
                            double abs = Math.abs(bias[co]);
                            for (int ci = 0; ci < cin; ci++) {
                                for (int i = 0; i < 3; i++) {
                                    for (int j = 0; j < 3; j++) {
                                        int ih = a - p + i;
                                        int iw = c2 - p + j;
                                        if (ih < 0 || ih >= h || iw < 0 || iw >= w) {
                                            continue;
                                        }
                                        int xi = ((b * cin + ci) * h + ih) * w + iw;
                                        int wi = ((co * cin + ci) * 3 + i) * 3 + j;
                                        sum += (double) x[xi] * wt[wi];
                                        abs += Math.abs((double) x[xi] * wt[wi]);
                                        gx[xi] += (double) gy[yi] * wt[wi];
                                        gxAbs[xi] += Math.abs((double) gy[yi] * wt[wi]);
                                        gw[wi] += (double) gy[yi] * x[xi];
                                        gwAbs[wi] += Math.abs((double) gy[yi] * x[xi]);
                                    }
                                }
                            }
                            ey[yi] = sum;
                            eyAbs[yi] = abs;
                        }
                    }
                }
            }
            String what = java.util.Arrays.toString(sh);
            near(ey, eyAbs, y.toDoubleArray(), what + " value");
            near(gx, gxAbs, xt.grad().toDoubleArray(), what + " input gradient");
            near(gw, gwAbs, wtt.grad().toDoubleArray(), what + " weight gradient");
            double[] gb = bt.grad().toDoubleArray();
            double[] eb = new double[cout];
            double[] ebAbs = new double[cout];
            for (int i = 0; i < gy.length; i++) {
                eb[i / (oh * ow) % cout] += gy[i];
                ebAbs[i / (oh * ow) % cout] += Math.abs(gy[i]);
            }
            near(eb, ebAbs, gb, what + " bias gradient");
        }
    }

    /** conv_transpose2d with stride 1 on the same kernel against its definition: each x element times the weights it meets. */
    @ParameterizedTest
    @ValueSource(strings = {"winograd", "direct"})
    void convTransposeWithStrideOneEqualsTheScatteredSum(String way) {
        System.setProperty("gradscope.conv", way);
        Random r = new Random(33);
        for (int[] sh : new int[][] {{1, 4, 5, 6, 7, 1}, {2, 3, 17, 5, 5, 0}, {1, 9, 2, 4, 3, 2}}) {
            int n = sh[0], cin = sh[1], cout = sh[2], h = sh[3], w = sh[4], p = sh[5];
            int oh = h - 2 * p + 2;
            int ow = w - 2 * p + 2;
            float[] x = random(r, n * cin * h * w);
            float[] wt = random(r, cin * cout * 9);
            Op op = OpRegistry.create("conv_transpose2d", Map.of("stride", new int[] {1}, "padding", new int[] {p}));
            double[] y = Ops.apply(op, f32(x, n, cin, h, w), f32(wt, cin, cout, 3, 3)).toDoubleArray();
            double[] ey = new double[n * cout * oh * ow];
            double[] abs = new double[ey.length];
            for (int b = 0; b < n; b++) {
                for (int ci = 0; ci < cin; ci++) {
                    for (int a = 0; a < h; a++) {
                        for (int c2 = 0; c2 < w; c2++) {
                            for (int co = 0; co < cout; co++) {
                                for (int i = 0; i < 3; i++) {
                                    for (int j = 0; j < 3; j++) {
                                        int oi = a - p + i;
                                        int oj = c2 - p + j;
                                        if (oi < 0 || oi >= oh || oj < 0 || oj >= ow) {
                                            continue;
                                        }
                                        double t = (double) x[((b * cin + ci) * h + a) * w + c2] * wt[((ci * cout + co) * 3 + i) * 3 + j];
                                        int yi = ((b * cout + co) * oh + oi) * ow + oj;
                                        ey[yi] += t;
                                        abs[yi] += Math.abs(t);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            near(ey, abs, y, java.util.Arrays.toString(sh));
        }
    }

    /**
     * The weight gradient as an op of its own (what the convolution's VJP applies): its value against
     * the float64 sum over images and positions, by the 3x3 kernel and by its im2col fallback, and its
     * VJP (conv_transpose2d for x, conv2d for g, themselves on the 3x3 kernel) against float64 sums.
     */
    @Test
    void theWeightGradientOpAndItsVjpEqualDirectSums() {
        Random r = new Random(35);
        for (String mode : new String[] {"winograd", "im2col"}) {
            System.setProperty("gradscope.conv", mode);
            for (int[] sh : new int[][] {{2, 5, 3, 7, 6, 1}, {1, 3, 17, 9, 9, 0}, {1, 4, 2, 5, 4, 2}}) {
                int n = sh[0], c = sh[1], k = sh[2], h = sh[3], w = sh[4], p = sh[5];
                int oh = h + 2 * p - 2;
                int ow = w + 2 * p - 2;
                float[] x = random(r, n * c * h * w);
                float[] g = random(r, n * k * oh * ow);
                float[] rb = random(r, k * c * 9);
                Tensor xt = f32(x, n, c, h, w).setRequiresGrad(true);
                Tensor gt = f32(g, n, k, oh, ow).setRequiresGrad(true);
                Tensor dw = Ops.apply(new ConvWeightGradOp(p, p), xt, gt);
                Backward.run(Ops.sum(Ops.mul(dw, f32(rb, k, c, 3, 3))));
                double[] ew = new double[k * c * 9];
                double[] ewAbs = new double[ew.length];
                double[] ex = new double[x.length];
                double[] exAbs = new double[x.length];
                double[] eg = new double[g.length];
                double[] egAbs = new double[g.length];
                for (int b = 0; b < n; b++) {
                    for (int co = 0; co < k; co++) {
                        for (int a = 0; a < oh; a++) {
                            for (int e = 0; e < ow; e++) {
                                int gi = ((b * k + co) * oh + a) * ow + e;
                                for (int ci = 0; ci < c; ci++) {
                                    for (int i = 0; i < 3; i++) {
                                        for (int j = 0; j < 3; j++) {
                                            int ih = a - p + i;
                                            int iw = e - p + j;
                                            if (ih < 0 || ih >= h || iw < 0 || iw >= w) {
                                                continue;
                                            }
                                            int xi = ((b * c + ci) * h + ih) * w + iw;
                                            int wi = ((co * c + ci) * 3 + i) * 3 + j;
                                            ew[wi] += (double) g[gi] * x[xi];
                                            ewAbs[wi] += Math.abs((double) g[gi] * x[xi]);
                                            ex[xi] += (double) g[gi] * rb[wi];
                                            exAbs[xi] += Math.abs((double) g[gi] * rb[wi]);
                                            eg[gi] += (double) x[xi] * rb[wi];
                                            egAbs[gi] += Math.abs((double) x[xi] * rb[wi]);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                String what = mode + " " + java.util.Arrays.toString(sh);
                near(ew, ewAbs, dw.toDoubleArray(), what + " value");
                near(ex, exAbs, xt.grad().toDoubleArray(), what + " x gradient");
                near(eg, egAbs, gt.grad().toDoubleArray(), what + " g gradient");
            }
        }
    }

    /** x without its batch axis ([C, H, W]): the same value and gradients as with a batch of one. */
    @Test
    void anUnbatchedInputGivesWhatABatchOfOneGives() {
        System.setProperty("gradscope.conv", "winograd");
        Random r = new Random(36);
        float[] x = random(r, 3 * 6 * 5);
        float[] wt = random(r, 4 * 3 * 9);
        double[][] got = new double[2][];
        double[][] gx = new double[2][];
        double[][] gw = new double[2][];
        for (int way = 0; way < 2; way++) {
            Tensor xt = (way == 0 ? f32(x, 3, 6, 5) : f32(x, 1, 3, 6, 5)).setRequiresGrad(true);
            Tensor wtt = f32(wt, 4, 3, 3, 3).setRequiresGrad(true);
            Tensor y = Ops.conv2d(xt, wtt, null, new int[] {1}, new int[] {1}, new int[] {1}, 1);
            Backward.run(Ops.sum(Ops.mul(y, y)));
            got[way] = y.toDoubleArray();
            gx[way] = xt.grad().toDoubleArray();
            gw[way] = wtt.grad().toDoubleArray();
        }
        assertArrayEquals(got[1], got[0]);
        assertArrayEquals(gx[1], gx[0]);
        assertArrayEquals(gw[1], gw[0]);
    }

    /**
     * Winograd's kernel takes a plane of 128 tiles (its rule for smaller ones is DirectConvTest's);
     * {@code -Dgradscope.conv=im2col} gives the same values by the other path (im2col's product),
     * within the same bounds, rounded another way. The kernel is forced: which one the machine's own
     * choice takes is KernelTunerTest's and DirectConvTest's, from faked times.
     */
    @Test
    void winogradTakesBigPlanesAndTheIm2colSwitchGivesTheSameConvolution() {
        Random r = new Random(34);
        float[] x = random(r, 2 * 5 * 17 * 16);
        float[] wt = random(r, 7 * 5 * 9);
        Tensor big = f32(x, 2, 5, 17, 16);
        Tensor w = f32(wt, 7, 5, 3, 3);
        assertNotNull(big.backend().conv3x3(big, w, false, 1, 1, "winograd"), "2 x 9 x 8 tiles");
        System.setProperty("gradscope.conv", "winograd");
        double[] fast = Ops.conv2d(big, w, null, new int[] {1}, new int[] {1}, new int[] {1}, 1).toDoubleArray();
        System.setProperty("gradscope.conv", "im2col");
        assertTrue(ConvPath.im2colOnly());
        double[] old = Ops.conv2d(big, w, null, new int[] {1}, new int[] {1}, new int[] {1}, 1).toDoubleArray();
        double scale = 0;
        for (double v : old) {
            scale = Math.max(scale, Math.abs(v));
        }
        assertArrayEquals(old, fast, 1e-5 * scale);
        boolean same = true;
        for (int i = 0; i < old.length; i++) {
            same &= old[i] == fast[i];
        }
        assertTrue(!same, "two ways of rounding: some element differs in its last bits");
    }

    private static void near(double[] expected, double[] absSum, double[] actual, String what) {
        assertTrue(expected.length == actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            double tol = ROUNDINGS * absSum[i] + 1e-30;
            double err = Math.abs(expected[i] - actual[i]);
            assertTrue(err <= tol, what + " at " + i + ": " + actual[i] + " against " + expected[i] + " (error " + err + ", bound "
                    + tol + ")");
        }
    }
}
