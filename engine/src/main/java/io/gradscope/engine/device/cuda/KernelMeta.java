package io.gradscope.engine.device.cuda;

import io.gradscope.engine.tensor.Tensor;

/**
 * The small int arrays ("meta") that describe strided operands to the kernels of
 * assets/kernels/gradscope.cu, built on the host with their dimensions coalesced: size-1
 * dimensions are dropped and neighbours that every operand walks as one are merged, so a
 * contiguous operand is rank 1 and the kernels' index arithmetic needs no division for it.
 */
final class KernelMeta {
    private KernelMeta() {
    }

    /**
     * Elementwise layout: {@code rank, shape[rank]}, then per operand {@code strides[rank], offset}.
     * Operand 0 is the output; all are viewed with {@code shape}.
     */
    static int[] elementwise(int[] shape, Tensor... operands) {
        int[][] strides = new int[operands.length][];
        int[] offsets = new int[operands.length];
        for (int i = 0; i < operands.length; i++) {
            strides[i] = operands[i].strides();
            offsets[i] = operands[i].offset();
        }
        return elementwise(shape, strides, offsets);
    }

    static int[] elementwise(int[] shape, int[][] strides, int[] offsets) {
        int k = strides.length;
        int r = shape.length;
        int[] size = new int[r];
        int[][] st = new int[k][r];
        int n = 0;
        // Innermost first: each dimension either extends the one inside it or starts a new one.
        for (int d = r - 1; d >= 0; d--) {
            if (shape[d] == 1) {
                continue;
            }
            boolean merge = n > 0;
            for (int op = 0; op < k && merge; op++) {
                merge = (long) st[op][n - 1] * size[n - 1] == strides[op][d];
            }
            if (merge) {
                size[n - 1] *= shape[d];
                continue;
            }
            size[n] = shape[d];
            for (int op = 0; op < k; op++) {
                st[op][n] = strides[op][d];
            }
            n++;
        }
        int[] m = new int[1 + n + k * (n + 1)];
        m[0] = n;
        for (int i = 0; i < n; i++) {
            m[1 + i] = size[n - 1 - i];
        }
        int at = 1 + n;
        for (int op = 0; op < k; op++) {
            for (int i = 0; i < n; i++) {
                m[at + i] = st[op][n - 1 - i];
            }
            m[at + n] = offsets[op];
            at += n + 1;
        }
        return m;
    }

    /**
     * Reduction layout: {@code rank, shape[rank], xStrides[rank], xOffset, outStrides[rank],
     * outOffset}, where an output stride of -1 marks a reduced dimension. {@code out} has
     * {@code x}'s rank with size 1 on each reduced axis.
     */
    static int[] reduction(Tensor x, Tensor out) {
        return reduction(x.shape(), x.strides(), x.offset(), out.shape(), out.strides(), out.offset());
    }

    static int[] reduction(int[] xShape, int[] xStrides, int xOffset, int[] outShape, int[] outStrides, int outOffset) {
        int r = xShape.length;
        int[] size = new int[r];
        int[] xs = new int[r];
        int[] os = new int[r];
        int n = 0;
        for (int d = r - 1; d >= 0; d--) {
            if (xShape[d] == 1) {
                continue;
            }
            boolean reduced = outShape[d] == 1;
            int o = reduced ? -1 : outStrides[d];
            if (n > 0 && (os[n - 1] < 0) == reduced && (long) xs[n - 1] * size[n - 1] == xStrides[d]
                    && (reduced || (long) os[n - 1] * size[n - 1] == o)) {
                size[n - 1] *= xShape[d];
                continue;
            }
            size[n] = xShape[d];
            xs[n] = xStrides[d];
            os[n] = o;
            n++;
        }
        int[] m = new int[1 + n + (n + 1) + (n + 1)];
        m[0] = n;
        for (int i = 0; i < n; i++) {
            m[1 + i] = size[n - 1 - i];
            m[1 + n + i] = xs[n - 1 - i];
            m[1 + n + n + 1 + i] = os[n - 1 - i];
        }
        m[1 + n + n] = xOffset;
        m[1 + n + n + 1 + n] = outOffset;
        return m;
    }

    /** The elements each output of a reduction layout sums over. */
    static long reducedCount(int[] meta) {
        int n = meta[0];
        long c = 1;
        for (int d = 0; d < n; d++) {
            if (meta[1 + n + n + 1 + d] < 0) {
                c *= meta[1 + d];
            }
        }
        return c;
    }

    /** The outputs of a reduction layout. */
    static long outputCount(int[] meta) {
        int n = meta[0];
        long c = 1;
        for (int d = 0; d < n; d++) {
            if (meta[1 + n + n + 1 + d] >= 0) {
                c *= meta[1 + d];
            }
        }
        return c;
    }
}
