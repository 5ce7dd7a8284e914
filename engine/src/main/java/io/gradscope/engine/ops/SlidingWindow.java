package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;

/**
 * The sliding window of a convolution or pooling over the last two axes of {@code [N, C, H, W]}: kernel,
 * stride, padding and dilation per axis. A 1-D op is a 2-D one over {@code [N, C, 1, L]} with a
 * {@code 1 × k} kernel. Holds the two data movements every windowed op is written from, with no
 * kernel of their own: {@link #unfold} (im2col, one strided copy) and {@link #fold} (col2im, one
 * accumulating add per kernel offset, in a fixed order so results are deterministic).
 *
 * <p>With {@code ceilMode} (pooling's {@code ceil_mode=True}) the output size rounds up, as PyTorch
 * 1.13's {@code pooling_output_shape}: the last window may hang past the end of the padded input, but
 * a window that would start in the right padding is dropped. The part past the padding is the
 * window's overhang: {@link #unfold} fills it with its own value ({@code endValue}), {@link #fold}
 * drops what lands there.
 */
final class SlidingWindow {
    final int kh;
    final int kw;
    final int sh;
    final int sw;
    final int ph;
    final int pw;
    final int dh;
    final int dw;
    final boolean ceilMode;
    /** Rows and columns of windows fixed by the caller ({@link #counts}), or −1: as many as fit. */
    private final int fixedH;
    private final int fixedW;

    SlidingWindow(int kh, int kw, int sh, int sw, int ph, int pw, int dh, int dw) {
        this(kh, kw, sh, sw, ph, pw, dh, dw, false);
    }

    SlidingWindow(int kh, int kw, int sh, int sw, int ph, int pw, int dh, int dw, boolean ceilMode) {
        this(kh, kw, sh, sw, ph, pw, dh, dw, ceilMode, -1, -1);
    }

    private SlidingWindow(int kh, int kw, int sh, int sw, int ph, int pw, int dh, int dw, boolean ceilMode, int fixedH, int fixedW) {
        this.fixedH = fixedH;
        this.fixedW = fixedW;
        this.kh = kh;
        this.kw = kw;
        this.sh = sh;
        this.sw = sw;
        this.ph = ph;
        this.pw = pw;
        this.dh = dh;
        this.dw = dw;
        this.ceilMode = ceilMode;
    }

    /**
     * The same window, taking only the first {@code oh × ow} windows (at most as many as fit): a
     * transposed convolution's output padding of stride or more adds rows and columns that no further
     * window of x starts on (Note [Output padding past the stride] in ConvTransposeOp).
     */
    SlidingWindow counts(int oh, int ow) {
        return new SlidingWindow(kh, kw, sh, sw, ph, pw, dh, dw, ceilMode, oh, ow);
    }

    /** Whether the window count is fixed by {@link #counts} rather than by the input's size. */
    boolean fixedCounts() {
        return fixedH >= 0;
    }

    /** The same window with pooling's {@code ceil_mode} set or not. */
    SlidingWindow ceilMode(boolean ceil) {
        return new SlidingWindow(kh, kw, sh, sw, ph, pw, dh, dw, ceil);
    }

    /**
     * The window of an op over {@code spatial} (1 or 2) axes; each attribute is one integer for every
     * axis or one per axis. A null stride is the kernel size (pooling's default).
     */
    static SlidingWindow of(String op, int spatial, int[] kernel, int[] stride, int[] padding, int[] dilation) {
        int[] k = perAxis(op, "kernel_size", kernel, spatial, 1);
        int[] s = stride == null ? k : perAxis(op, "stride", stride, spatial, 1);
        int[] p = perAxis(op, "padding", padding, spatial, 0);
        int[] d = perAxis(op, "dilation", dilation, spatial, 1);
        return spatial == 1 ? new SlidingWindow(1, k[0], 1, s[0], 0, p[0], 1, d[0]) : new SlidingWindow(k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1]);
    }

    private static int[] perAxis(String op, String what, int[] v, int spatial, int min) {
        if (v.length != 1 && v.length != spatial) {
            throw new GradscopeException(op + ": " + what + " must be one integer or " + spatial + ", not " + Arrays.toString(v));
        }
        int[] out = new int[spatial];
        for (int i = 0; i < spatial; i++) {
            out[i] = v[v.length == 1 ? 0 : i];
            if (out[i] < min) {
                throw new GradscopeException(op + ": " + what + " must be at least " + min + ", not " + out[i]);
            }
        }
        return out;
    }

    /** The output size along an axis of input size {@code n}, or an error when the window does not fit. */
    private int out(String op, int n, int k, int s, int p, int d, int[] shape) {
        int span = d * (k - 1) + 1;
        if (n + 2 * p < span) {
            throw new GradscopeException(op + ": the input " + Shapes.str(shape) + " (padded by " + p + ") is smaller than the window ("
                    + span + (d > 1 ? ", dilated" : "") + ")");
        }
        if (!ceilMode) {
            return (n + 2 * p - span) / s + 1;
        }
        int o = (n + 2 * p - span + s - 1) / s + 1;
        // PyTorch: the last window must start inside the input or its left padding.
        return (o - 1) * s >= n + p ? o - 1 : o;
    }

    int outH(String op, int h, int[] shape) {
        return fixed(op, out(op, h, kh, sh, ph, dh, shape), fixedH);
    }

    int outW(String op, int w, int[] shape) {
        return fixed(op, out(op, w, kw, sw, pw, dw, shape), fixedW);
    }

    private static int fixed(String op, int fit, int fixed) {
        if (fixed > fit) {
            throw new GradscopeException(op + ": " + fixed + " windows do not fit where " + fit + " do");
        }
        return fixed >= 0 ? fixed : fit;
    }

    /** How far {@code o} windows along an axis of size {@code n} reach past its end padding (ceil_mode's overhang). */
    private static int overhang(int n, int o, int k, int s, int p, int d) {
        return Math.max(0, (o - 1) * s + d * (k - 1) + 1 - (n + 2 * p));
    }

    /** The overhang below the plane, for {@code oh} rows of windows over {@code h} rows. */
    int overhangH(int h, int oh) {
        return overhang(h, oh, kh, sh, ph, dh);
    }

    /** The overhang right of the plane, for {@code ow} columns of windows over {@code w} columns. */
    int overhangW(int w, int ow) {
        return overhang(w, ow, kw, sw, pw, dw);
    }

    /** Kernel elements per channel. */
    int size() {
        return kh * kw;
    }

    /** PyTorch's pooling rule: padding at most half the kernel, so no window lies in the padding only. */
    void checkPoolPadding(String op) {
        if (ph > kh / 2 || pw > kw / 2) {
            throw new GradscopeException(op + ": padding must be at most half the kernel size");
        }
    }

    /** The text of the window's attributes for a label: {@code kernel_size=(3, 3), stride=2}. */
    String text(int spatial, boolean withDilation) {
        StringBuilder sb = new StringBuilder("kernel_size=" + pair(spatial, kh, kw));
        if (sh != 1 || sw != 1) {
            sb.append(", stride=").append(pair(spatial, sh, sw));
        }
        if (ph != 0 || pw != 0) {
            sb.append(", padding=").append(pair(spatial, ph, pw));
        }
        if (withDilation && (dh != 1 || dw != 1)) {
            sb.append(", dilation=").append(pair(spatial, dh, dw));
        }
        if (ceilMode) {
            sb.append(", ceil_mode=True");
        }
        return sb.toString();
    }

    private static String pair(int spatial, int a, int b) {
        return spatial == 1 || a == b ? Integer.toString(b) : "(" + a + ", " + b + ")";
    }

    /** {@code {kh, kw, sh, sw, ph, pw, dh, dw}}, as the backends' window kernels take it. */
    int[] geometry() {
        return new int[] {kh, kw, sh, sw, ph, pw, dh, dw};
    }

    /** Whether every window is one element, read where it lies: unfold is a reshape, fold its inverse. */
    boolean isIdentity() {
        return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0;
    }

    // ---- the data movements -----------------------------------------------------------------

    /**
     * im2col: the windows of {@code x [N, C, H, W]} (any strides) as a new contiguous
     * {@code [N, C, kh, kw, OH, OW]}; positions in the padding read {@code padValue}.
     */
    Tensor unfold(Tensor x, double padValue) {
        return unfold(x, padValue, padValue);
    }

    /** {@link #unfold(Tensor, double)}, positions in ceil_mode's overhang past the padding reading {@code endValue}. */
    Tensor unfold(Tensor x, double padValue, double endValue) {
        int[] s = x.shape();
        int n = s[0];
        int c = s[1];
        int oh = outH("unfold", s[2], s);
        int ow = outW("unfold", s[3], s);
        int eh = overhangH(s[2], oh);
        int ew = overhangW(s[3], ow);
        // The backend's kernel reads every position outside x as padValue: right where the overhang reads the same.
        boolean sameEnd = endValue == padValue || Double.isNaN(endValue) && Double.isNaN(padValue);
        Tensor direct = x.numel() > 0 && (sameEnd || eh == 0 && ew == 0)
                ? x.backend().unfold(x, geometry(), padValue, oh, ow) : null;
        if (direct != null) {
            return direct;
        }
        Tensor src = x;
        if (ph > 0 || pw > 0 || eh > 0 || ew > 0) {
            int hp = s[2] + 2 * ph;
            int wp = s[3] + 2 * pw;
            src = Tensor.full(x.dtype(), x.device(), padValue, n, c, hp + eh, wp + ew);
            if (endValue != padValue || Double.isNaN(endValue) != Double.isNaN(padValue)) {
                if (eh > 0) {
                    x.backend().copy(Tensor.full(x.dtype(), x.device(), endValue, n, c, eh, wp + ew), src.viewNarrow(2, hp, eh));
                }
                if (ew > 0) {
                    x.backend().copy(Tensor.full(x.dtype(), x.device(), endValue, n, c, hp + eh, ew), src.viewNarrow(3, wp, ew));
                }
            }
            x.backend().copy(x, src.viewNarrow(2, ph, s[2]).viewNarrow(3, pw, s[3]));
        }
        int[] st = src.strides();
        int[] shape = {n, c, kh, kw, oh, ow};
        Tensor windows = src.asStrided(shape, new int[] {st[0], st[1], dh * st[2], dw * st[3], sh * st[2], sw * st[3]}, src.offset());
        // Every element is written below: no zero fill first.
        Tensor out = Tensor.empty(x.dtype(), x.device(), shape);
        if (out.numel() > 0) {
            x.backend().copy(windows, out);
        }
        return out;
    }

    /**
     * col2im: sums {@code cols [N, C, kh, kw, OH, OW]} (any strides) back into a new {@code [N, C, H, W]};
     * values that fall in the padding (or ceil_mode's overhang) are dropped. One add per kernel offset,
     * always in the same order.
     */
    Tensor fold(Tensor cols, int h, int w) {
        int[] cs = cols.shape();
        int n = cs[0];
        int c = cs[1];
        int oh = cs[4];
        int ow = cs[5];
        // The backend's kernel drops what falls in the padding or the overhang, as the padded path below does.
        Tensor direct = cols.numel() > 0 ? cols.backend().fold(cols, geometry(), h, w) : null;
        if (direct != null) {
            return direct;
        }
        int eh = overhangH(h, oh);
        int ew = overhangW(w, ow);
        Tensor padded = Tensor.zeros(cols.dtype(), cols.device(), n, c, h + 2 * ph + eh, w + 2 * pw + ew);
        if (padded.numel() > 0 && cols.numel() > 0) {
            int[] st = padded.strides();
            int[] ct = cols.strides();
            int[] shape = {n, c, oh, ow};
            for (int i = 0; i < kh; i++) {
                for (int j = 0; j < kw; j++) {
                    Tensor dst = padded.asStrided(shape, new int[] {st[0], st[1], sh * st[2], sw * st[3]},
                            i * dh * st[2] + j * dw * st[3]);
                    Tensor src = cols.asStrided(shape, new int[] {ct[0], ct[1], ct[4], ct[5]}, cols.offset() + i * ct[2] + j * ct[3]);
                    cols.backend().binary(BinaryKind.ADD, dst, src, dst);
                }
            }
        }
        if (ph == 0 && pw == 0 && eh == 0 && ew == 0) {
            return padded;
        }
        return Unrecorded.copy(padded.viewNarrow(2, ph, h).viewNarrow(3, pw, w));
    }

    // ---- index tracing, for the dependency rules ---------------------------------------------

    /**
     * Which element of an {@code [H, W]} plane every window element reads, in {@link #unfold}'s
     * layout {@code [kh, kw, OH, OW]} (C order): its flat index {@code ih·W + iw}, or -1 in the
     * padding. Found by running the forward's own unfold on an index plane (element i holding i + 1,
     * the padding 0), as index sets are traced: the geometry is the forward's, and no derivative is
     * evaluated.
     */
    int[] sources(int h, int w) {
        double[] ids = new double[Math.multiplyExact(h, w)];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = i + 1;
        }
        double[] cols = unfold(Tensor.fromDoubles(DType.FLOAT64, ids, 1, 1, h, w), 0).toDoubleArray();
        int[] src = new int[cols.length];
        for (int e = 0; e < cols.length; e++) {
            src[e] = (int) cols[e] - 1;
        }
        return src;
    }

    /**
     * {@link #sources} over {@code planes} planes of {@code [H, W]} (the N·C of {@code [N, C, H, W]}):
     * for every element of {@code [planes, kh, kw, OH, OW]}, the flat index it reads in
     * {@code [planes, H, W]}, or -1 in the padding. Unfold gathers from these, fold scatters to them.
     */
    int[] sources(int planes, int h, int w) {
        int[] plane = sources(h, w);
        int hw = h * w;
        int[] src = new int[Math.multiplyExact(planes, plane.length)];
        for (int b = 0, e = 0; b < planes; b++) {
            for (int p : plane) {
                src[e++] = p >= 0 ? b * hw + p : -1;
            }
        }
        return src;
    }

    /**
     * The pattern of a pooling over {@code planes} planes of {@code [H, W]}: output element
     * {@code (b, l)} ({@code [planes, OH, OW]}) on the elements of its window inside the plane;
     * with {@code keep} ({@code [planes, K, L]}, as the pools lay their windows out), only where
     * keep is not zero.
     */
    Pattern pooled(int planes, int h, int w, double[] keep) {
        int[] plane = sources(h, w);
        int k = size();
        int l = plane.length / Math.max(k, 1);
        int hw = h * w;
        Pattern.Builder b = new Pattern.Builder(Math.multiplyExact(planes, l), Math.multiplyExact(planes, hw));
        for (int c = 0; c < planes; c++) {
            for (int o = 0; o < l; o++) {
                for (int i = 0; i < k; i++) {
                    int p = plane[i * l + o];
                    if (p >= 0 && (keep == null || keep[(c * k + i) * l + o] != 0)) {
                        b.add(c * hw + p);
                    }
                }
                b.endRow();
            }
        }
        return b.build();
    }

    /** {@code t} with a size-1 axis inserted at {@code axis} (a view: a 1-D op's input as 2-D). */
    static Tensor insertAxis(Tensor t, int axis) {
        int[] s = t.shape();
        int[] st = t.strides();
        int[] ns = new int[s.length + 1];
        int[] nt = new int[s.length + 1];
        for (int i = 0, j = 0; i < ns.length; i++) {
            if (i == axis) {
                ns[i] = 1;
                nt[i] = 0;
            } else {
                ns[i] = s[j];
                nt[i] = st[j++];
            }
        }
        return t.asStrided(ns, nt, t.offset());
    }
}
