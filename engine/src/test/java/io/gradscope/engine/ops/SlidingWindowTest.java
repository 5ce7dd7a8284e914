package io.gradscope.engine.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The backend's window kernels (im2col, col2im, max pooling straight from x) and the convolution's
 * 1x1 path against naive loops written from the definitions: every window geometry (stride,
 * padding, dilation, 1x1), batches of more than one, inputs that are strided views, float32 and
 * float64; the convolution's value and gradients (groups too) against a float64 six-loop sum.
 */
public class SlidingWindowTest {
    /** {kh, kw, sh, sw, ph, pw, dh, dw}. */
    private static final int[][] WINDOWS = {
        {3, 3, 1, 1, 1, 1, 1, 1}, {3, 3, 2, 2, 1, 1, 1, 1}, {1, 1, 1, 1, 0, 0, 1, 1}, {1, 1, 2, 2, 0, 0, 1, 1},
        {7, 7, 2, 2, 3, 3, 1, 1}, {2, 3, 1, 2, 0, 1, 2, 1}, {3, 2, 3, 1, 2, 0, 1, 3}, {3, 3, 1, 1, 0, 0, 2, 2},
        {1, 5, 1, 1, 0, 2, 1, 1}, {3, 3, 1, 1, 3, 3, 1, 1}};

    private static SlidingWindow window(int[] g) {
        return new SlidingWindow(g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]);
    }

    private static double[] random(Random r, int n) {
        double[] v = new double[n];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        return v;
    }

    /** x [n, c, h, w] as a strided view: the transpose of a contiguous [n, c, w, h]. */
    private static Tensor transposedView(double[] values, int n, int c, int h, int w, DType dt) {
        double[] t = new double[values.length];
        for (int p = 0; p < n * c; p++) {
            for (int i = 0; i < h; i++) {
                for (int j = 0; j < w; j++) {
                    t[p * h * w + j * h + i] = values[p * h * w + i * w + j];
                }
            }
        }
        Tensor base = Tensor.of(t, n, c, w, h).to(dt);
        return base.asStrided(new int[] {n, c, h, w}, new int[] {c * h * w, h * w, 1, h}, 0);
    }

    /**
     * The columns of {@code planes} planes of h × w values (x's layout) for the window g = {kh, kw, sh, sw,
     * ph, pw, dh, dw}, written from the definition: [plane, i, j, a, b], {@code pad} outside x.
     */
    public static double[] unfoldByDefinition(double[] x, int planes, int h, int w, int[] g, int oh, int ow, double pad) {
        double[] cols = new double[planes * g[0] * g[1] * oh * ow];
        int e = 0;
        for (int p = 0; p < planes; p++) {
            for (int i = 0; i < g[0]; i++) {
                for (int j = 0; j < g[1]; j++) {
                    for (int a = 0; a < oh; a++) {
                        for (int b = 0; b < ow; b++) {
                            int ih = a * g[2] - g[4] + i * g[6];
                            int iw = b * g[3] - g[5] + j * g[7];
                            cols[e++] = ih < 0 || ih >= h || iw < 0 || iw >= w ? pad : x[p * h * w + ih * w + iw];
                        }
                    }
                }
            }
        }
        return cols;
    }

    private static int out(int n, int k, int s, int p, int d) {
        return (n + 2 * p - d * (k - 1) - 1) / s + 1;
    }

    @Test
    void unfoldReadsEachWindowElementOrThePadding() {
        Random r = new Random(7);
        for (int[] g : WINDOWS) {
            for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                for (boolean strided : new boolean[] {false, true}) {
                    int n = 2, c = 3, h = 9, w = 8;
                    double[] x = random(r, n * c * h * w);
                    Tensor xt = strided ? transposedView(x, n, c, h, w, dt) : Tensor.of(x, n, c, h, w).to(dt);
                    double[] xv = xt.toDoubleArray();
                    Tensor cols = window(g).unfold(xt, -7);
                    int oh = out(h, g[0], g[2], g[4], g[6]);
                    int ow = out(w, g[1], g[3], g[5], g[7]);
                    assertArrayEquals(new int[] {n, c, g[0], g[1], oh, ow}, cols.shape());
                    double[] expected = unfoldByDefinition(xv, n * c, h, w, g, oh, ow, -7);
                    assertArrayEquals(expected, cols.toDoubleArray(), 0, java.util.Arrays.toString(g) + " " + dt);
                }
            }
        }
    }

    @Test
    void foldAddsEachWindowElementInKernelOffsetOrder() {
        Random r = new Random(8);
        for (int[] g : WINDOWS) {
            for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                int n = 2, c = 3, h = 9, w = 8;
                int oh = out(h, g[0], g[2], g[4], g[6]);
                int ow = out(w, g[1], g[3], g[5], g[7]);
                int[] shape = {n, c, g[0], g[1], oh, ow};
                double[] cv = random(r, n * c * g[0] * g[1] * oh * ow);
                // as a strided view too: the last two axes of a contiguous [.., ow, oh], transposed
                Tensor plain = Tensor.of(cv, shape).to(dt);
                cv = plain.toDoubleArray();
                int planes = n * c * g[0] * g[1];
                double[] swapped = new double[cv.length];
                for (int q = 0; q < planes; q++) {
                    for (int a = 0; a < oh; a++) {
                        for (int b = 0; b < ow; b++) {
                            swapped[q * oh * ow + b * oh + a] = cv[q * oh * ow + a * ow + b];
                        }
                    }
                }
                int[] st = {c * g[0] * g[1] * oh * ow, g[0] * g[1] * oh * ow, g[1] * oh * ow, oh * ow, 1, oh};
                Tensor viewed = Tensor.of(swapped, n, c, g[0], g[1], ow, oh).to(dt).asStrided(shape, st, 0);
                boolean f32 = dt == DType.FLOAT32;
                double[] expected = new double[n * c * h * w];
                float[] expectedF = new float[expected.length];
                int e = 0;
                for (int p = 0; p < n * c; p++) {
                    for (int i = 0; i < g[0]; i++) {
                        for (int j = 0; j < g[1]; j++) {
                            for (int a = 0; a < oh; a++) {
                                for (int b = 0; b < ow; b++, e++) {
                                    int ih = a * g[2] - g[4] + i * g[6];
                                    int iw = b * g[3] - g[5] + j * g[7];
                                    if (ih >= 0 && ih < h && iw >= 0 && iw < w) {
                                        expected[p * h * w + ih * w + iw] += cv[e];
                                        expectedF[p * h * w + ih * w + iw] += (float) cv[e];
                                    }
                                }
                            }
                        }
                    }
                }
                if (f32) {
                    for (int i = 0; i < expected.length; i++) {
                        expected[i] = expectedF[i];
                    }
                }
                for (Tensor cols : new Tensor[] {plain, viewed}) {
                    Tensor folded = window(g).fold(cols, h, w);
                    assertArrayEquals(new int[] {n, c, h, w}, folded.shape());
                    assertArrayEquals(expected, folded.toDoubleArray(), 0, java.util.Arrays.toString(g) + " " + dt);
                }
            }
        }
    }

    /** {kh, kw, sh, sw, ph, pw, dh, dw, ceil_mode} of max_pool2d. */
    private static final int[][] POOLS = {{3, 3, 2, 2, 1, 1, 1, 1, 0}, {2, 2, 2, 2, 0, 0, 1, 1, 0}, {3, 1, 1, 1, 1, 0, 1, 1, 0},
        {3, 2, 1, 2, 1, 1, 1, 1, 0}, {3, 3, 2, 2, 1, 1, 1, 1, 1}, {2, 3, 3, 2, 1, 1, 2, 1, 1}, {3, 3, 1, 1, 1, 1, 2, 2, 0}};

    private static int poolOut(int n, int k, int s, int p, int d, boolean ceil) {
        int span = d * (k - 1) + 1;
        if (!ceil) {
            return (n + 2 * p - span) / s + 1;
        }
        int o = (n + 2 * p - span + s - 1) / s + 1;
        return (o - 1) * s >= n + p ? o - 1 : o;
    }

    /**
     * Max pooling's value and gradient (straight from x, and through the mask and fold when the
     * gradient is recorded to be differentiated again) against a loop written from PyTorch's kernel:
     * over the window's positions inside x, {@code val > max || isnan(val)} from the first one on.
     */
    @Test
    void maxPoolTakesTheFirstMaximumOrTheLastNaN() {
        Random r = new Random(9);
        int n = 2, c = 2, h = 7, w = 6;
        double[] x = new double[n * c * h * w];
        for (int i = 0; i < x.length; i++) {
            x[i] = r.nextInt(3) - 1; // many ties
        }
        x[4] = Double.NaN; // two NaN side by side: a window holding both sends its gradient to the later one
        x[5] = Double.NaN;
        x[40] = Double.NEGATIVE_INFINITY;
        // the second plane's bottom-right 3 x 3 −∞ only: a window over it sends its gradient to its first position
        for (int i = 4; i < 7; i++) {
            for (int j = 3; j < 6; j++) {
                x[h * w + i * w + j] = Double.NEGATIVE_INFINITY;
            }
        }
        checkMaxPool(x, n, c, h, w);
    }

    /**
     * The same over rows wider than a vector of either dtype (the kernel's selection runs over output
     * positions, a vector at a time, then a plain tail): NaN alone and side by side at several columns,
     * and a band of −∞ only wider than a vector.
     */
    @Test
    void maxPoolOverWideRowsTakesTheFirstMaximumOrTheLastNaN() {
        Random r = new Random(11);
        int n = 1, c = 2, h = 5, w = 53;
        double[] x = new double[n * c * h * w];
        for (int i = 0; i < x.length; i++) {
            x[i] = r.nextInt(3) - 1;
        }
        for (int at : new int[] {3, 17, 18, 40, 52, w + 9, 2 * w + 30, 2 * w + 31, 4 * w + 20}) {
            x[at] = Double.NaN;
        }
        for (int i = 1; i < 5; i++) {
            for (int j = 10; j < 45; j++) {
                x[h * w + i * w + j] = Double.NEGATIVE_INFINITY;
            }
        }
        checkMaxPool(x, n, c, h, w);
    }

    private static void checkMaxPool(double[] x, int n, int c, int h, int w) {
        for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            for (int[] kp : POOLS) {
                for (int way = 0; way < 3; way++) {
                    Tensor xt = (way == 1 ? transposedView(x, n, c, h, w, dt) : Tensor.of(x, n, c, h, w).to(dt)).setRequiresGrad(true);
                    Op pool = OpRegistry.create("max_pool2d", java.util.Map.of("kernel_size", new int[] {kp[0], kp[1]}, "stride",
                            new int[] {kp[2], kp[3]}, "padding", new int[] {kp[4], kp[5]}, "dilation", new int[] {kp[6], kp[7]},
                            "ceil_mode", kp[8] == 1));
                    Tensor y = Ops.apply(pool, xt);
                    if (way == 2) {
                        Backward.startCreatingGraph(Ops.sum(y)).finish();
                    } else {
                        Backward.run(Ops.sum(y));
                    }
                    int oh = poolOut(h, kp[0], kp[2], kp[4], kp[6], kp[8] == 1);
                    int ow = poolOut(w, kp[1], kp[3], kp[5], kp[7], kp[8] == 1);
                    double[] xv = Tensor.of(x, x.length).to(dt).toDoubleArray();
                    double[] ey = new double[n * c * oh * ow];
                    double[] eg = new double[x.length];
                    for (int q = 0; q < n * c; q++) {
                        for (int a = 0; a < oh; a++) {
                            for (int b = 0; b < ow; b++) {
                                double m = Double.NEGATIVE_INFINITY;
                                int arg = -1;
                                for (int i = 0; i < kp[0]; i++) {
                                    for (int j = 0; j < kp[1]; j++) {
                                        int ih = a * kp[2] - kp[4] + i * kp[6];
                                        int iw = b * kp[3] - kp[5] + j * kp[7];
                                        if (ih < 0 || ih >= h || iw < 0 || iw >= w) {
                                            continue;
                                        }
                                        double v = xv[q * h * w + ih * w + iw];
                                        if (arg < 0 || v > m || Double.isNaN(v)) {
                                            m = v;
                                            arg = q * h * w + ih * w + iw;
                                        }
                                    }
                                }
                                ey[(q * oh + a) * ow + b] = m;
                                if (arg >= 0) {
                                    eg[arg] += 1;
                                }
                            }
                        }
                    }
                    String what = java.util.Arrays.toString(kp) + " " + dt + " way " + way;
                    assertArrayEquals(ey, y.toDoubleArray(), 0, what);
                    assertArrayEquals(eg, xt.grad().toDoubleArray(), 0, what);
                }
            }
        }
    }

    /** {stride, padding, dilation, groups, kernel} of conv2d, the 1x1 ones taking the direct path. */
    private static final int[][] CONVS = {{1, 0, 1, 1, 1}, {2, 0, 1, 1, 1}, {1, 1, 1, 1, 3}, {2, 1, 1, 1, 3}, {1, 2, 2, 1, 3},
        {1, 1, 1, 2, 3}, {1, 0, 1, 4, 1}, {2, 3, 1, 1, 7}, {1, 1, 1, 4, 3}};

    @Test
    void conv2dAndItsGradientsEqualANaiveSum() {
        Random r = new Random(10);
        for (int[] cv : CONVS) {
            int s = cv[0], p = cv[1], d = cv[2], groups = cv[3], k = cv[4];
            int n = 2, cin = 4, cout = 8, h = 9, w = 7;
            double[] x = random(r, n * cin * h * w);
            double[] wt = random(r, cout * cin / groups * k * k);
            double[] bias = random(r, cout);
            int oh = out(h, k, s, p, d);
            int ow = out(w, k, s, p, d);
            double[] gy = random(r, n * cout * oh * ow);
            Tensor xt = Tensor.of(x, n, cin, h, w).setRequiresGrad(true);
            Tensor wtt = Tensor.of(wt, cout, cin / groups, k, k).setRequiresGrad(true);
            Tensor bt = Tensor.of(bias, cout).setRequiresGrad(true);
            Tensor y = Ops.conv2d(xt, wtt, bt, new int[] {s}, new int[] {p}, new int[] {d}, groups);
            Backward.run(Ops.sum(Ops.mul(y, Tensor.of(gy, n, cout, oh, ow))));
            double[] ey = new double[gy.length];
            double[] gx = new double[x.length];
            double[] gw = new double[wt.length];
            int per = cin / groups;
            int outPer = cout / groups;
            for (int b = 0; b < n; b++) {
                for (int co = 0; co < cout; co++) {
                    for (int a = 0; a < oh; a++) {
                        for (int c2 = 0; c2 < ow; c2++) {
                            int yi = ((b * cout + co) * oh + a) * ow + c2;
                            double sum = bias[co];
                            for (int ci = 0; ci < per; ci++) {
                                int chan = co / outPer * per + ci;
                                for (int i = 0; i < k; i++) {
                                    for (int j = 0; j < k; j++) {
                                        int ih = a * s - p + i * d;
                                        int iw = c2 * s - p + j * d;
                                        if (ih < 0 || ih >= h || iw < 0 || iw >= w) {
                                            continue;
                                        }
                                        int xi = ((b * cin + chan) * h + ih) * w + iw;
                                        int wi = ((co * per + ci) * k + i) * k + j;
                                        sum += x[xi] * wt[wi];
                                        gx[xi] += gy[yi] * wt[wi];
                                        gw[wi] += gy[yi] * x[xi];
                                    }
                                }
                            }
                            ey[yi] = sum;
                        }
                    }
                }
            }
            String what = java.util.Arrays.toString(cv);
            assertArrayEquals(ey, y.toDoubleArray(), 1e-12, what);
            assertArrayEquals(gx, xt.grad().toDoubleArray(), 1e-12, what);
            assertArrayEquals(gw, wtt.grad().toDoubleArray(), 1e-12, what);
            double[] gb = bt.grad().toDoubleArray();
            for (int co = 0; co < cout; co++) {
                double sum = 0;
                for (int b = 0; b < n; b++) {
                    for (int q = 0; q < oh * ow; q++) {
                        sum += gy[(b * cout + co) * oh * ow + q];
                    }
                }
                assertEquals(sum, gb[co], 1e-12, what);
            }
        }
    }
}
