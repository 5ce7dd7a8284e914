package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.Tensor;
import java.util.Locale;

/**
 * Which way a convolution is computed. A 3x3 window with stride 1, no dilation and one group (13 of
 * resnet18's 20 convolutions, and their input gradients) goes to the backend's own kernel ({@code
 * Backend.conv3x3}: Winograd's F(2x2, 3x3) on the CPU, float32); every other window, float64, and a
 * backend without that kernel multiply im2col's columns. {@code -Dgradscope.conv=im2col} (or
 * GRADSCOPE_CONV=im2col) keeps every convolution on im2col, to compare; it is read at each call.
 */
final class ConvPath {
    private ConvPath() {
    }

    /** Whether im2col was asked for every convolution. */
    static boolean im2colOnly() {
        String p = System.getProperty("gradscope.conv");
        String v = p != null && !p.isBlank() ? p : System.getenv("GRADSCOPE_CONV");
        return v != null && v.trim().toLowerCase(Locale.ROOT).equals("im2col");
    }

    /** Whether a window of this geometry has a 3x3 kernel of its own. */
    static boolean fits(Window w, int groups) {
        return w.kh == 3 && w.kw == 3 && w.sh == 1 && w.sw == 1 && w.dh == 1 && w.dw == 1 && groups == 1 && !w.ceilMode;
    }

    /**
     * x [N, C, H, W] correlated with the 3x3 weight by the backend's kernel, padding (ph, pw); the
     * weight {@code [C, K, 3, 3]} flipped with {@code transposed}. Null where im2col is to be used.
     */
    static Tensor direct(Window w, int groups, Tensor x, Tensor wt, boolean transposed, int ph, int pw) {
        if (!fits(w, groups) || x.rank() != 4 || x.device() != wt.device() || im2colOnly()) {
            return null;
        }
        return x.backend().conv3x3(x, wt, transposed, ph, pw);
    }
}
