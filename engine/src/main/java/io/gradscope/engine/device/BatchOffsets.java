package io.gradscope.engine.device;

import io.gradscope.engine.tensor.Tensor;

/**
 * Where each matrix of a batched matmul starts: for {@code [B..., M, K] @ [B..., K, N]} with the
 * batch dimensions already broadcast, the element offset of every batch entry in each operand.
 */
public record BatchOffsets(int count, long[] a, long[] b) {

    public static BatchOffsets of(Tensor a, Tensor b, int[] outShape) {
        int r = outShape.length;
        int count = 1;
        for (int i = 0; i < r - 2; i++) {
            count *= outShape[i];
        }
        long[] ao = new long[count];
        long[] bo = new long[count];
        int[] as = a.strides();
        int[] bs = b.strides();
        int[] idx = new int[Math.max(r - 2, 0)];
        for (int p = 0; p < count; p++) {
            long x = a.offset();
            long y = b.offset();
            for (int d = 0; d < r - 2; d++) {
                x += (long) idx[d] * as[d];
                y += (long) idx[d] * bs[d];
            }
            ao[p] = x;
            bo[p] = y;
            for (int d = r - 3; d >= 0; d--) {
                if (++idx[d] < outShape[d]) {
                    break;
                }
                idx[d] = 0;
            }
        }
        return new BatchOffsets(count, ao, bo);
    }
}
