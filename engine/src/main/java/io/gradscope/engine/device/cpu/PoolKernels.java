package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;

/**
 * Max pooling straight from {@code x [N, C, H, W]}, with no unfolded windows in between: the
 * forward's maximum of each window and where it lies ({@link #maxPool}), the backward's gradient
 * sent there ({@link #maxPoolBackward}). The window is {@code {kh, kw, sh, sw, ph, pw, dh, dw}};
 * positions outside x (padding, ceil_mode's overhang) are no candidates, as in PyTorch's kernel.
 */
final class PoolKernels {
    private PoolKernels() {
    }

    /**
     * The new {@code max [N, C, 1, L]} and {@code index [N, C, 1, L]} (x's dtype): for each window, in
     * kernel-offset order over its positions inside x, PyTorch's {@code val > max || isnan(val)} from
     * the first position on, so the first maximum, or the last NaN where the window holds one (the
     * maximum is then NaN); the index is its kernel offset {@code i·kw + j}, or −1 (maximum −∞) for a
     * window with no position inside x. Null for dtypes other than float32 and float64.
     */
    static Tensor[] maxPool(Tensor x, int[] win, int oh, int ow) {
        DType dt = x.dtype();
        if (dt != DType.FLOAT32 && dt != DType.FLOAT64) {
            return null;
        }
        int[] s = x.shape();
        int[] xs = x.strides();
        int c = s[1];
        int l = oh * ow;
        Tensor max = Tensor.empty(dt, x.device(), s[0], c, 1, l);
        Tensor index = Tensor.empty(dt, x.device(), s[0], c, 1, l);
        boolean f32 = dt == DType.FLOAT32;
        Im2colKernels.planes(s[0] * c, (long) win[0] * win[1] * l, p -> {
            int xo = x.offset() + (p / c) * xs[0] + (p % c) * xs[1];
            int yo = p * l;
            if (f32) {
                maxPlane(x.storage().floats(), xo, xs[2], xs[3], s[2], s[3], win, max.storage().floats(),
                        index.storage().floats(), yo, oh, ow);
            } else {
                maxPlane(x.storage().doubles(), xo, xs[2], xs[3], s[2], s[3], win, max.storage().doubles(),
                        index.storage().doubles(), yo, oh, ow);
            }
        });
        return new Tensor[] {max, index};
    }

    // row by row, each kernel offset updating the whole output row at once: a window's
    // candidates are still visited in kernel-offset order, so the first maximum and the last NaN
    // are those of the window-by-window loop, but the selection runs over output positions, without
    // branches where the Vector API is present (VectorPool). Strided candidates (stride or x's
    // column stride not 1) are first copied into a contiguous row.

    private static void maxPlane(float[] x, int xo, int rs, int cs, int h, int w, int[] win, float[] m, float[] idx, int yo,
                                 int oh, int ow) {
        int kh = win[0], kw = win[1], sh = win[2], sw = win[3], ph = win[4], pw = win[5], dh = win[6], dw = win[7];
        float[] tmp = sw == 1 && cs == 1 ? null : new float[ow];
        for (int r = 0; r < oh; r++) {
            int o = yo + r * ow;
            Arrays.fill(m, o, o + ow, Float.NEGATIVE_INFINITY);
            Arrays.fill(idx, o, o + ow, -1f);
            int top = r * sh - ph;
            for (int i = 0; i < kh; i++) {
                int ih = top + i * dh;
                if (ih < 0 || ih >= h) {
                    continue;
                }
                int row = xo + ih * rs;
                for (int j = 0; j < kw; j++) {
                    int off = j * dw - pw;
                    int q0 = firstInside(off, sw);
                    int n = endInside(off, sw, w, ow) - q0;
                    if (n <= 0) {
                        continue;
                    }
                    float[] v = x;
                    int vo = row + q0 + off;
                    if (tmp != null) {
                        for (int t = 0, at = row + (q0 * sw + off) * cs; t < n; t++, at += sw * cs) {
                            tmp[t] = x[at];
                        }
                        v = tmp;
                        vo = 0;
                    }
                    if (CpuMatmul.VECTOR) {
                        VectorPool.update(v, vo, m, idx, o + q0, n, i * kw + j);
                    } else {
                        update(v, vo, m, idx, o + q0, 0, n, i * kw + j);
                    }
                }
            }
        }
    }

    // GENERATED double twin (Twins, engine tests): edit the float method above, not this one
    private static void maxPlane(double[] x, int xo, int rs, int cs, int h, int w, int[] win, double[] m, double[] idx, int yo,
                                 int oh, int ow) {
        int kh = win[0], kw = win[1], sh = win[2], sw = win[3], ph = win[4], pw = win[5], dh = win[6], dw = win[7];
        double[] tmp = sw == 1 && cs == 1 ? null : new double[ow];
        for (int r = 0; r < oh; r++) {
            int o = yo + r * ow;
            Arrays.fill(m, o, o + ow, Double.NEGATIVE_INFINITY);
            Arrays.fill(idx, o, o + ow, -1.0);
            int top = r * sh - ph;
            for (int i = 0; i < kh; i++) {
                int ih = top + i * dh;
                if (ih < 0 || ih >= h) {
                    continue;
                }
                int row = xo + ih * rs;
                for (int j = 0; j < kw; j++) {
                    int off = j * dw - pw;
                    int q0 = firstInside(off, sw);
                    int n = endInside(off, sw, w, ow) - q0;
                    if (n <= 0) {
                        continue;
                    }
                    double[] v = x;
                    int vo = row + q0 + off;
                    if (tmp != null) {
                        for (int t = 0, at = row + (q0 * sw + off) * cs; t < n; t++, at += sw * cs) {
                            tmp[t] = x[at];
                        }
                        v = tmp;
                        vo = 0;
                    }
                    if (CpuMatmul.VECTOR) {
                        VectorPool.update(v, vo, m, idx, o + q0, n, i * kw + j);
                    } else {
                        update(v, vo, m, idx, o + q0, 0, n, i * kw + j);
                    }
                }
            }
        }
    }

    /** The first output position q whose column {@code q·sw + off} is at least 0. */
    private static int firstInside(int off, int sw) {
        return off >= 0 ? 0 : (-off + sw - 1) / sw;
    }

    /** One past the last output position (at most {@code ow}) whose column {@code q·sw + off} is below w. */
    private static int endInside(int off, int sw, int w, int ow) {
        int lim = w - off;
        return lim <= 0 ? 0 : Math.min(ow, (lim + sw - 1) / sw);
    }

    /**
     * For q in {@code [from, n)}: candidate {@code v[vo + q]} replaces {@code m[o + q]} and its index
     * by k where {@code idx < 0 || v > max || isnan(v)} (PyTorch's comparison; the first candidate always).
     */
    static void update(float[] v, int vo, float[] m, float[] idx, int o, int from, int n, float k) {
        for (int q = from; q < n; q++) {
            float c = v[vo + q];
            int t = o + q;
            if (idx[t] < 0 || c > m[t] || c != c) {
                m[t] = c;
                idx[t] = k;
            }
        }
    }

    /** {@link #update(float[], int, float[], float[], int, int, int, float)} in float64. */
    // GENERATED double twin (Twins, engine tests): edit the float method above, not this one
    static void update(double[] v, int vo, double[] m, double[] idx, int o, int from, int n, double k) {
        for (int q = from; q < n; q++) {
            double c = v[vo + q];
            int t = o + q;
            if (idx[t] < 0 || c > m[t] || c != c) {
                m[t] = c;
                idx[t] = k;
            }
        }
    }

    /**
     * The new {@code dx [N, C, H, W]}: each element of {@code g} ({@code N·C} planes of {@code OH·OW}
     * outputs, as {@code index}) added where {@code index} (as {@link #maxPool} gives it) points, in output order; an index of −1, or one whose position
     * lies outside x, sends nothing. Null for dtypes other than float32 and float64, or operands of
     * different dtypes or not contiguous.
     */
    static Tensor maxPoolBackward(Tensor g, Tensor index, int[] win, int oh, int ow, int h, int w) {
        DType dt = g.dtype();
        if (dt != DType.FLOAT32 && dt != DType.FLOAT64 || index.dtype() != dt || !g.isContiguous() || !index.isContiguous()) {
            return null;
        }
        int l = oh * ow;
        int planes = l == 0 ? 0 : (int) (g.numel() / l);
        if (index.numel() != g.numel() || (long) planes * l != g.numel()) {
            return null;
        }
        int[] s = g.shape();
        int c = s[1];
        Tensor dx = Tensor.empty(dt, g.device(), s[0], c, h, w);
        boolean f32 = dt == DType.FLOAT32;
        Im2colKernels.planes(planes, (long) l + (long) h * w, p -> {
            int go = g.offset() + p * l;
            int io = index.offset() + p * l;
            int xo = p * h * w;
            if (f32) {
                float[] out = dx.storage().floats();
                Arrays.fill(out, xo, xo + h * w, 0f);
                float[] gv = g.storage().floats();
                float[] iv = index.storage().floats();
                for (int o = 0; o < l; o++) {
                    int at = source(win, (int) iv[io + o], o / ow, o % ow, h, w);
                    if (at >= 0) {
                        out[xo + at] += gv[go + o];
                    }
                }
            } else {
                double[] out = dx.storage().doubles();
                Arrays.fill(out, xo, xo + h * w, 0.0);
                double[] gv = g.storage().doubles();
                double[] iv = index.storage().doubles();
                for (int o = 0; o < l; o++) {
                    int at = source(win, (int) iv[io + o], o / ow, o % ow, h, w);
                    if (at >= 0) {
                        out[xo + at] += gv[go + o];
                    }
                }
            }
        });
        return dx;
    }

    /** Where kernel offset {@code k} of the window at output {@code (r, q)} reads in an {@code h × w} plane, or −1 outside it. */
    private static int source(int[] win, int k, int r, int q, int h, int w) {
        if (k < 0) {
            return -1;
        }
        int ih = r * win[2] - win[4] + k / win[1] * win[6];
        int iw = q * win[3] - win[5] + k % win[1] * win[7];
        return ih < 0 || ih >= h || iw < 0 || iw >= w ? -1 : ih * w + iw;
    }
}
