package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;

/**
 * The im2col way of a 3x3, stride-1, padding-1 convolution of one image, as the ops compute it when
 * no 3x3 kernel takes it (ConvOp: unfold, then one product; its input gradient a product, then
 * fold): the third candidate {@link KernelTimings} times beside the direct and Winograd kernels.
 */
final class Im2col {
    private Im2col() {
    }

    private static final int[] WINDOW = {3, 3, 1, 1, 1, 1, 1, 1};

    /**
     * x [1, C, H, W] correlated with w [K, C, 3, 3] into [1, K, H, W]; with {@code transposed}, x is
     * a gradient [1, K, H, W] sent back through w to [1, C, H, W] (the input gradient).
     */
    static Tensor conv(Tensor x, Tensor w, boolean transposed) {
        int[] ws = w.shape();
        int h = x.shape()[2];
        int wd = x.shape()[3];
        int l = h * wd;
        int k = ws[0];
        int c9 = ws[1] * 9;
        Tensor w2 = w.contiguous().viewReshape(new int[] {k, c9});
        if (!transposed) {
            Tensor cols = Im2colKernels.unfold(x, WINDOW, 0, h, wd).viewReshape(new int[] {c9, l});
            Tensor y = Tensor.empty(x.dtype(), Device.CPU, k, l);
            CpuMatmul.run(w2, cols, y);
            return y.viewReshape(new int[] {1, k, h, wd});
        }
        Tensor wt = w2.asStrided(new int[] {c9, k}, new int[] {1, c9}, w2.offset());
        Tensor dcols = Tensor.empty(x.dtype(), Device.CPU, c9, l);
        CpuMatmul.run(wt, x.contiguous().viewReshape(new int[] {k, l}), dcols);
        return Im2colKernels.fold(dcols.viewReshape(new int[] {1, ws[1], 3, 3, h, wd}), WINDOW, h, wd);
    }

    /** The weight gradient [K, C, 3, 3] from x [1, C, H, W] and g [1, K, H, W]. */
    static Tensor weightGrad(Tensor x, Tensor g) {
        int c = x.shape()[1];
        int h = x.shape()[2];
        int wd = x.shape()[3];
        int k = g.shape()[1];
        int l = h * wd;
        Tensor cols = Im2colKernels.unfold(x, WINDOW, 0, h, wd).viewReshape(new int[] {c * 9, l});
        Tensor colsT = cols.asStrided(new int[] {l, c * 9}, new int[] {1, l}, cols.offset());
        Tensor dw = Tensor.empty(x.dtype(), Device.CPU, k, c * 9);
        CpuMatmul.run(g.contiguous().viewReshape(new int[] {k, l}), colsT, dw);
        return dw.viewReshape(new int[] {k, c, 3, 3});
    }
}
