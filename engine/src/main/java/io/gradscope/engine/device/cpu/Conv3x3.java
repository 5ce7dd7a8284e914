package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;

/**
 * The sizes of a 3x3 stride-1 correlation of x [N, C, H, W] with a weight [K, C, 3, 3] (or, {@code
 * transposed}, [C, K, 3, 3] read flipped), padding (ph, pw): the output [N, K, OH, OW]. Shared by the
 * CPU's 3x3 kernels ({@link DirectConv}, {@link WinogradConv}).
 */
record Conv3x3(int n, int c, int h, int w, int k, int oh, int ow) {
    /** The most elements a kernel's scratch array may have (Java's arrays stop a little below 2^31). */
    static final long MAX_ELEMENTS = Integer.MAX_VALUE - 16;

    /** Null where a float32 kernel has nothing to compute: not float32, not 4-d, or an empty output. */
    static Conv3x3 of(Tensor x, Tensor wt, boolean transposed, int ph, int pw) {
        if (x.dtype() != DType.FLOAT32 || wt.dtype() != DType.FLOAT32 || x.rank() != 4 || wt.rank() != 4) {
            return null;
        }
        int[] s = x.shape();
        int k = transposed ? wt.shape()[1] : wt.shape()[0];
        int oh = s[2] + 2 * ph - 2;
        int ow = s[3] + 2 * pw - 2;
        if (oh < 1 || ow < 1 || s[0] == 0 || s[1] == 0 || k == 0) {
            return null;
        }
        return new Conv3x3(s[0], s[1], s[2], s[3], k, oh, ow);
    }
}
