package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;

/**
 * The sliding-window data movements of convolution and pooling as plane-by-plane loops: im2col
 * ({@link #unfold}) and col2im ({@link #fold}) (max pooling's kernels are {@link PoolKernels}). They compute what the generic strided copies and adds compute (the
 * padding read, the same adds in the same order), without materialising a padded copy of the input
 * or walking six-dimensional strided views. The window is {@code {kh, kw, sh, sw, ph, pw, dh, dw}}.
 */
final class Im2colKernels {
    private Im2colKernels() {
    }

    /**
     * Whether the faster window loops run (the strided unfold of Note [Strided rows by phases], the
     * vector Winograd transforms of Note [Vector transforms]): {@code -Dgradscope.windows=plain} keeps
     * the plain ones, read at each call so that both can be timed in one JVM (scripts/bench/step_ab.sh).
     */
    static boolean fast() {
        return !"plain".equals(System.getProperty("gradscope.windows"));
    }

    /** Below this many elements moved, one thread does it all. */
    private static final long PARALLEL_ELEMENTS = 1L << 15;

    /** {@code count} planes (or rows) in about one chunk per thread when the work is worth splitting. */
    static void planes(int count, long perPlane, java.util.function.IntConsumer plane) {
        int parts = (long) count * perPlane < PARALLEL_ELEMENTS ? 1 : Math.min(count, CpuThreads.THREADS);
        CpuThreads.parallelFor(parts, t -> {
            int p0 = (int) ((long) count * t / parts);
            int p1 = (int) ((long) count * (t + 1) / parts);
            for (int p = p0; p < p1; p++) {
                plane.accept(p);
            }
        });
    }

    /** The first output position along an axis whose input index {@code o·s − p + off} is at least 0. */
    private static int firstInside(int off, int s, int p) {
        int need = p - off;
        return need <= 0 ? 0 : (need + s - 1) / s;
    }

    /** One past the last output position (at most {@code out}) whose input index is below {@code n}. */
    private static int endInside(int off, int s, int p, int n, int out) {
        int lim = n + p - off; // o·s < lim
        if (lim <= 0) {
            return 0;
        }
        return Math.min(out, (lim + s - 1) / s);
    }

    /**
     * im2col: {@code x [N, C, H, W]} (any strides) into a new {@code [N, C, kh, kw, OH, OW]}; positions
     * in the padding read {@code pad}. Null for dtypes other than float32 and float64.
     */
    static Tensor unfold(Tensor x, int[] win, double pad, int oh, int ow) {
        DType dt = x.dtype();
        if (dt != DType.FLOAT32 && dt != DType.FLOAT64) {
            return null;
        }
        int[] s = x.shape();
        int[] xs = x.strides();
        int c = s[1];
        // Every element is written below: no zero fill first.
        Tensor out = Tensor.empty(dt, x.device(), s[0], c, win[0], win[1], oh, ow);
        int kk = win[0] * win[1];
        long perPlane = (long) kk * oh * ow;
        boolean f32 = dt == DType.FLOAT32;
        if (f32 && xs[3] == 1 && win[3] > 1 && win[7] == 1 && fast()) {
            // a plane's window rows apart: resnet18's stem has three planes, which two threads share unevenly
            int kh = win[0];
            planes(s[0] * c * kh, perPlane / kh, u -> {
                int p = u / kh;
                int xo = x.offset() + (p / c) * xs[0] + (p % c) * xs[1];
                int yo = out.offset() + (int) (p * perPlane);
                unfoldPlanePhases(x.storage().floats(), xo, xs[2], s[2], s[3], win, (float) pad, out.storage().floats(), yo, oh,
                        ow, u % kh);
            });
            return out;
        }
        planes(s[0] * c, perPlane, p -> {
            int xo = x.offset() + (p / c) * xs[0] + (p % c) * xs[1];
            int yo = out.offset() + (int) (p * perPlane);
            if (f32) {
                unfoldPlane(x.storage().floats(), xo, xs[2], xs[3], s[2], s[3], win, (float) pad, out.storage().floats(), yo, oh, ow);
            } else {
                unfoldPlane(x.storage().doubles(), xo, xs[2], xs[3], s[2], s[3], win, pad, out.storage().doubles(), yo, oh, ow);
            }
        });
        return out;
    }

    private static void unfoldPlane(float[] x, int xo, int rs, int cs, int h, int w, int[] win, float pad, float[] y, int yo,
                                    int oh, int ow) {
        int kh = win[0], kw = win[1], sh = win[2], sw = win[3], ph = win[4], pw = win[5], dh = win[6], dw = win[7];
        for (int i = 0; i < kh; i++) {
            for (int j = 0; j < kw; j++) {
                int jo = j * dw;
                int lo = Math.min(ow, firstInside(jo, sw, pw));
                int hi = Math.max(lo, endInside(jo, sw, pw, w, ow));
                for (int r = 0; r < oh; r++, yo += ow) {
                    int ih = r * sh - ph + i * dh;
                    if (ih < 0 || ih >= h) {
                        Arrays.fill(y, yo, yo + ow, pad);
                        continue;
                    }
                    if (lo > 0) {
                        Arrays.fill(y, yo, yo + lo, pad);
                    }
                    if (hi < ow) {
                        Arrays.fill(y, yo + hi, yo + ow, pad);
                    }
                    if (hi == lo) {
                        // Every read of this kernel column lies in the padding: where src would point is no
                        // element of x (a negative index, or past x's end), and even a copy of none checks it.
                        continue;
                    }
                    int src = xo + ih * rs + (lo * sw - pw + jo) * cs;
                    int step = sw * cs;
                    if (step == 1) {
                        System.arraycopy(x, src, y, yo + lo, hi - lo);
                    } else {
                        for (int q = lo; q < hi; q++, src += step) {
                            y[yo + q] = x[src];
                        }
                    }
                }
            }
        }
    }

    /**
     * Note [Strided rows by phases]: with a column stride sw > 1 each kernel offset j reads every
     * sw-th element of a row, one element at a time (resnet18's 7x7 stem with stride 2 and its
     * stride-2 3x3 layers: 4% of a steady step's samples, in perf). Here each input row a window
     * row reads is split once into its sw phases (padded row elements φ, φ + sw, ...; the padding
     * read as {@code pad}), and offset j is then one {@code arraycopy} of phase j mod sw from
     * element j / sw: the same values as {@link #unfoldPlane}, written row by row of the output
     * instead of offset by offset. x's columns contiguous, no column dilation. Window row i only.
     */
    private static void unfoldPlanePhases(float[] x, int xo, int rs, int h, int w, int[] win, float pad, float[] y, int yo,
                                          int oh, int ow, int i) {
        int kw = win[1], sh = win[2], sw = win[3], ph = win[4], pw = win[5], dh = win[6];
        int len = ow + (kw - 1) / sw;
        float[] phases = new float[sw * len];
        int plane = oh * ow;
        int yi = yo + i * kw * plane;
        for (int r = 0; r < oh; r++) {
            int ih = r * sh - ph + i * dh;
            if (ih < 0 || ih >= h) {
                for (int j = 0; j < kw; j++) {
                    Arrays.fill(y, yi + j * plane + r * ow, yi + j * plane + r * ow + ow, pad);
                }
                continue;
            }
            int row = xo + ih * rs;
            for (int f = 0; f < sw; f++) {
                // phase f's element u is the padded row's u·sw + f, x's column u·sw + f − pw
                int at = f * len;
                int lo = Math.min(len, Math.max(0, Math.floorDiv(pw - f + sw - 1, sw)));
                int hi = Math.max(lo, Math.min(len, Math.floorDiv(w + pw - f + sw - 1, sw)));
                Arrays.fill(phases, at, at + lo, pad);
                for (int u = lo, src = row + lo * sw + f - pw; u < hi; u++, src += sw) {
                    phases[at + u] = x[src];
                }
                Arrays.fill(phases, at + hi, at + len, pad);
            }
            for (int j = 0; j < kw; j++) {
                System.arraycopy(phases, (j % sw) * len + j / sw, y, yi + j * plane + r * ow, ow);
            }
        }
    }

    // GENERATED double twin (Twins, engine tests): edit the float method above, not this one
    private static void unfoldPlane(double[] x, int xo, int rs, int cs, int h, int w, int[] win, double pad, double[] y, int yo,
                                    int oh, int ow) {
        int kh = win[0], kw = win[1], sh = win[2], sw = win[3], ph = win[4], pw = win[5], dh = win[6], dw = win[7];
        for (int i = 0; i < kh; i++) {
            for (int j = 0; j < kw; j++) {
                int jo = j * dw;
                int lo = Math.min(ow, firstInside(jo, sw, pw));
                int hi = Math.max(lo, endInside(jo, sw, pw, w, ow));
                for (int r = 0; r < oh; r++, yo += ow) {
                    int ih = r * sh - ph + i * dh;
                    if (ih < 0 || ih >= h) {
                        Arrays.fill(y, yo, yo + ow, pad);
                        continue;
                    }
                    if (lo > 0) {
                        Arrays.fill(y, yo, yo + lo, pad);
                    }
                    if (hi < ow) {
                        Arrays.fill(y, yo + hi, yo + ow, pad);
                    }
                    if (hi == lo) {
                        // Every read of this kernel column lies in the padding: where src would point is no
                        // element of x (a negative index, or past x's end), and even a copy of none checks it.
                        continue;
                    }
                    int src = xo + ih * rs + (lo * sw - pw + jo) * cs;
                    int step = sw * cs;
                    if (step == 1) {
                        System.arraycopy(x, src, y, yo + lo, hi - lo);
                    } else {
                        for (int q = lo; q < hi; q++, src += step) {
                            y[yo + q] = x[src];
                        }
                    }
                }
            }
        }
    }

    /**
     * col2im: {@code cols [N, C, kh, kw, OH, OW]} (any strides) summed into the contiguous
     * new {@code [N, C, H, W]}; values in the padding are dropped. Each element
     * starts at zero and gets its window elements added in kernel-offset order, as the strided adds
     * did, so the sums are bit for bit theirs. False for dtypes other than float32 and float64.
     */
    static Tensor fold(Tensor cols, int[] win, int h, int w) {
        DType dt = cols.dtype();
        if (dt != DType.FLOAT32 && dt != DType.FLOAT64) {
            return null;
        }
        int[] cs = cols.shape();
        int[] ct = cols.strides();
        // Each plane is zeroed before its adds.
        Tensor out = Tensor.empty(dt, cols.device(), cs[0], cs[1], h, w);
        int[] os = out.shape();
        int c = os[1];
        int hw = os[2] * os[3];
        long perPlane = (long) cs[2] * cs[3] * cs[4] * cs[5];
        boolean f32 = dt == DType.FLOAT32;
        planes(os[0] * c, perPlane, p -> {
            int co = cols.offset() + (p / c) * ct[0] + (p % c) * ct[1];
            int yo = out.offset() + p * hw;
            if (f32) {
                foldPlane(cols.storage().floats(), co, ct, win, out.storage().floats(), yo, os[2], os[3], cs[4], cs[5]);
            } else {
                foldPlane(cols.storage().doubles(), co, ct, win, out.storage().doubles(), yo, os[2], os[3], cs[4], cs[5]);
            }
        });
        return out;
    }

    private static void foldPlane(float[] x, int xo, int[] ct, int[] win, float[] y, int yo, int h, int w, int oh, int ow) {
        int kh = win[0], kw = win[1], sh = win[2], sw = win[3], ph = win[4], pw = win[5], dh = win[6], dw = win[7];
        Arrays.fill(y, yo, yo + h * w, 0f);
        for (int i = 0; i < kh; i++) {
            for (int j = 0; j < kw; j++) {
                int jo = j * dw;
                int lo = Math.min(ow, firstInside(jo, sw, pw));
                int hi = Math.max(lo, endInside(jo, sw, pw, w, ow));
                int base = xo + i * ct[2] + j * ct[3];
                for (int r = 0; r < oh; r++) {
                    int ih = r * sh - ph + i * dh;
                    if (ih < 0 || ih >= h) {
                        continue;
                    }
                    int src = base + r * ct[4] + lo * ct[5];
                    int dst = yo + ih * w + lo * sw - pw + jo;
                    if (sw == 1 && ct[5] == 1) {
                        for (int q = 0, n = hi - lo; q < n; q++) {
                            y[dst + q] += x[src + q];
                        }
                    } else {
                        for (int q = lo; q < hi; q++, src += ct[5], dst += sw) {
                            y[dst] += x[src];
                        }
                    }
                }
            }
        }
    }

    // GENERATED double twin (Twins, engine tests): edit the float method above, not this one
    private static void foldPlane(double[] x, int xo, int[] ct, int[] win, double[] y, int yo, int h, int w, int oh, int ow) {
        int kh = win[0], kw = win[1], sh = win[2], sw = win[3], ph = win[4], pw = win[5], dh = win[6], dw = win[7];
        Arrays.fill(y, yo, yo + h * w, 0.0);
        for (int i = 0; i < kh; i++) {
            for (int j = 0; j < kw; j++) {
                int jo = j * dw;
                int lo = Math.min(ow, firstInside(jo, sw, pw));
                int hi = Math.max(lo, endInside(jo, sw, pw, w, ow));
                int base = xo + i * ct[2] + j * ct[3];
                for (int r = 0; r < oh; r++) {
                    int ih = r * sh - ph + i * dh;
                    if (ih < 0 || ih >= h) {
                        continue;
                    }
                    int src = base + r * ct[4] + lo * ct[5];
                    int dst = yo + ih * w + lo * sw - pw + jo;
                    if (sw == 1 && ct[5] == 1) {
                        for (int q = 0, n = hi - lo; q < n; q++) {
                            y[dst + q] += x[src + q];
                        }
                    } else {
                        for (int q = lo; q < hi; q++, src += ct[5], dst += sw) {
                            y[dst] += x[src];
                        }
                    }
                }
            }
        }
    }
}
