package io.gradscope.engine.device.cpu;

import static io.gradscope.engine.device.cpu.FloatMath.BLOCK;
import static io.gradscope.engine.device.cpu.FloatMath.LANES;

import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;

/**
 * Float32 reductions in float32: every output element is the canonical cascade sum (Note [Cascade
 * sum] in {@link FloatMath}) of its inputs taken in C order, whatever the layout. Two ways there:
 * when the last axis is reduced, each output's inputs are summed as one run (gathered first if
 * strided); when the last axis is kept (a bias gradient: [N, C] → [C]), whole rows of the kept axis
 * are added lane by lane, vectorized across columns, with the same tree per column.
 */
final class FloatReduce {
    private FloatReduce() {
    }

    static void run(ReduceKind kind, Tensor x, Tensor out) {
        int[] shape = x.shape();
        int[] os = out.shape();
        int r = shape.length;
        int nk = 0;
        int nr = 0;
        for (int i = 0; i < r; i++) {
            if (shape[i] != 1) {
                if (os[i] == 1) {
                    nr++;
                } else {
                    nk++;
                }
            }
        }
        int[] kDims = new int[nk];
        int[] kX = new int[nk];
        int[] kOut = new int[nk];
        int[] rDims = new int[nr];
        int[] rX = new int[nr];
        int lastAxis = -1;
        boolean lastKept = false;
        for (int i = 0, a = 0, b = 0; i < r; i++) {
            if (shape[i] == 1) {
                continue;
            }
            lastAxis = i;
            if (os[i] == 1) {
                rDims[b] = shape[i];
                rX[b++] = x.strides()[i];
                lastKept = false;
            } else {
                kDims[a] = shape[i];
                kX[a] = x.strides()[i];
                kOut[a++] = out.strides()[i];
                lastKept = true;
            }
        }
        if (out.numel() == 0) {
            return;
        }
        float[] xs = x.storage().floats();
        float[] ys = out.storage().floats();
        long total = x.numel();
        if (total == 0) {
            // Nothing to reduce: the identity of the reduction.
            fillOut(ys, out.offset(), kDims, kOut, kind == ReduceKind.SUM ? 0f : Float.NEGATIVE_INFINITY);
            return;
        }
        if (lastAxis >= 0 && lastKept && nr > 0) {
            columns(kind, xs, x.offset(), kDims, kX, kOut, rDims, rX, ys, out.offset());
        } else {
            runs(kind, xs, x.offset(), kDims, kX, kOut, rDims, rX, ys, out.offset());
        }
    }

    private static void fillOut(float[] ys, int yo, int[] kDims, int[] kOut, float v) {
        Odometer o = new Odometer(kDims, kOut, null, yo, 0);
        do {
            ys[o.a] = v;
        } while (o.next());
    }

    /** The last axis is reduced (or nothing is kept): each output's run of inputs is summed on its own. */
    private static void runs(ReduceKind kind, float[] xs, int xo, int[] kDims, int[] kX, int[] kOut, int[] rDims, int[] rX,
                             float[] ys, int yo) {
        int n = 1;
        for (int d : rDims) {
            n *= d;
        }
        boolean contiguous = isContiguous(rDims, rX);
        float[] buf = contiguous ? null : new float[n];
        Odometer outer = new Odometer(kDims, kX, kOut, xo, yo);
        do {
            float[] src = xs;
            int so = outer.a;
            if (!contiguous) {
                Odometer in = new Odometer(rDims, rX, null, outer.a, 0);
                int i = 0;
                do {
                    buf[i++] = xs[in.a];
                } while (in.next());
                src = buf;
                so = 0;
            }
            ys[outer.b] = kind == ReduceKind.SUM ? FloatKernels.sum(src, so, n) : max(src, so, n);
        } while (outer.next());
    }

    /** NaN wins, as in torch.amax. */
    private static float max(float[] x, int o, int n) {
        float m = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            m = Math.max(m, x[o + i]);
        }
        return m;
    }

    /**
     * The last axis is kept: for each index of the other kept axes, the reduced inputs are rows of
     * the last axis, added into 16 lane rows, folded and combined pairwise per block (Note [Cascade sum]).
     */
    private static void columns(ReduceKind kind, float[] xs, int xo, int[] kDims, int[] kX, int[] kOut, int[] rDims, int[] rX,
                                float[] ys, int yo) {
        int nk = kDims.length;
        int width = kDims[nk - 1];
        int wx = kX[nk - 1];
        int wy = kOut[nk - 1];
        int[] oDims = Arrays.copyOf(kDims, nk - 1);
        int[] oX = Arrays.copyOf(kX, nk - 1);
        int[] oOut = Arrays.copyOf(kOut, nk - 1);
        int n = 1;
        for (int d : rDims) {
            n *= d;
        }
        float[] row = wx == 1 ? null : new float[width];
        float[] lanes = new float[LANES * width];
        float[] result = new float[width];
        PairwiseRows pw = new PairwiseRows(width);
        Odometer outer = new Odometer(oDims, oX, oOut, xo, yo);
        do {
            Odometer in = new Odometer(rDims, rX, null, outer.a, 0);
            if (kind == ReduceKind.MAX) {
                Arrays.fill(result, Float.NEGATIVE_INFINITY);
                do {
                    for (int j = 0; j < width; j++) {
                        result[j] = Math.max(result[j], xs[in.a + j * wx]);
                    }
                } while (in.next());
            } else {
                pw.reset();
                Arrays.fill(lanes, 0f);
                int t = 0;
                do {
                    float[] src = xs;
                    int so = in.a;
                    if (row != null) {
                        for (int j = 0; j < width; j++) {
                            row[j] = xs[in.a + j * wx];
                        }
                        src = row;
                        so = 0;
                    }
                    int lane = (t % BLOCK) & (LANES - 1);
                    FloatKernels.addInto(src, so, lanes, lane * width, width);
                    t++;
                    if (t % BLOCK == 0 || t == n) {
                        for (int w = LANES / 2; w >= 1; w >>= 1) {
                            for (int j = 0; j < w; j++) {
                                FloatKernels.addInto(lanes, (j + w) * width, lanes, j * width, width);
                            }
                        }
                        pw.push(lanes);
                        Arrays.fill(lanes, 0f);
                    }
                } while (in.next());
                pw.result(result);
            }
            for (int j = 0; j < width; j++) {
                ys[outer.b + j * wy] = result[j];
            }
        } while (outer.next());
    }

    private static boolean isContiguous(int[] dims, int[] strides) {
        int expected = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            if (strides[i] != expected) {
                return false;
            }
            expected *= dims[i];
        }
        return true;
    }

    /** {@link FloatMath.Pairwise} for whole rows: row j of the result is the pairwise sum of column j. */
    private static final class PairwiseRows {
        private final int width;
        private final float[][] stack = new float[40][];
        private int top;
        private int blocks;

        PairwiseRows(int width) {
            this.width = width;
        }

        void reset() {
            top = 0;
            blocks = 0;
        }

        /** Pushes the first {@code width} values of {@code row} (copied). */
        void push(float[] row) {
            if (stack[top] == null) {
                stack[top] = new float[width];
            }
            System.arraycopy(row, 0, stack[top++], 0, width);
            blocks++;
            for (int m = blocks; (m & 1) == 0; m >>= 1) {
                FloatKernels.addInto(stack[top - 1], 0, stack[top - 2], 0, width);
                top--;
            }
        }

        void result(float[] out) {
            System.arraycopy(stack[top - 1], 0, out, 0, width);
            for (int i = top - 2; i >= 0; i--) {
                // stack[i] + r: addition commutes, so adding in place gives the scalar Pairwise's bits.
                FloatKernels.addInto(stack[i], 0, out, 0, width);
            }
        }
    }

    /** Walks a multi-index in C order, carrying two offsets ({@code a} and {@code b}) with their strides. */
    static final class Odometer {
        private final int[] dims;
        private final int[] sa;
        private final int[] sb;
        private final int[] idx;
        int a;
        int b;

        Odometer(int[] dims, int[] sa, int[] sb, int a, int b) {
            this.dims = dims;
            this.sa = sa;
            this.sb = sb;
            this.idx = new int[dims.length];
            this.a = a;
            this.b = b;
        }

        /** Moves to the next index; false after the last. */
        boolean next() {
            for (int d = dims.length - 1; d >= 0; d--) {
                idx[d]++;
                a += sa[d];
                if (sb != null) {
                    b += sb[d];
                }
                if (idx[d] < dims[d]) {
                    return true;
                }
                a -= sa[d] * dims[d];
                if (sb != null) {
                    b -= sb[d] * dims[d];
                }
                idx[d] = 0;
            }
            return false;
        }
    }
}
