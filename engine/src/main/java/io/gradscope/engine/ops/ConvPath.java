package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.Tensor;
import java.util.Locale;

/**
 * Which way a convolution is computed. A 3x3 window with stride 1, no dilation and one group (13 of
 * resnet18's 20 convolutions, and their input gradients) may go to the backend's own kernel ({@code
 * Backend.conv3x3}; on the CPU, float32: the direct kernel, Winograd's F(2x2, 3x3) or none, as
 * measured on the machine for small and large planes, the backend's KernelTuner); every other
 * window, float64, and a backend without that kernel multiply im2col's columns. The weight gradient
 * of such a window goes to {@code Backend.conv3x3WeightGrad}, chosen the same way. {@code -Dgradscope.conv} (or GRADSCOPE_CONV) chooses: {@code auto} (the
 * default), {@code im2col} (every convolution on im2col, to compare), {@code winograd} (Winograd's
 * kernel for every window that fits, whatever its size) or {@code direct} (the direct kernel for
 * every window that fits, where the machine has it). It is read at each call.
 */
final class ConvPath {
    private ConvPath() {
    }

    /** The asked-for way, lower case: auto, im2col or winograd (anything else counts as auto). */
    static String mode() {
        String p = System.getProperty("gradscope.conv");
        String v = p != null && !p.isBlank() ? p : System.getenv("GRADSCOPE_CONV");
        return v == null ? "auto" : v.trim().toLowerCase(Locale.ROOT);
    }

    /** Which way 3x3 stride-1 convolutions take on {@code backend}, in words: the asked-for one, or the backend's own choice. */
    static String describe(io.gradscope.engine.tensor.Backend backend) {
        String m = mode();
        return switch (m) {
            case "im2col", "winograd", "direct" -> m + " (gradscope.conv or GRADSCOPE_CONV asks for it)";
            default -> backend.conv3x3Choice();
        };
    }

    /** Whether im2col was asked for every convolution. */
    static boolean im2colOnly() {
        return mode().equals("im2col");
    }

    /** Whether a window of this geometry may go to a 3x3 kernel of the backend's own (unless im2col was asked for). */
    static boolean fits(SlidingWindow w, int groups) {
        return w.kh == 3 && w.kw == 3 && w.sh == 1 && w.sw == 1 && w.dh == 1 && w.dw == 1 && groups == 1 && !w.ceilMode
                && !im2colOnly();
    }

    /**
     * x [N, C, H, W] correlated with the 3x3 weight by the backend's kernel, padding (ph, pw); the
     * weight {@code [C, K, 3, 3]} flipped with {@code transposed}. Null where im2col is to be used.
     */
    static Tensor direct(SlidingWindow w, int groups, Tensor x, Tensor wt, boolean transposed, int ph, int pw) {
        if (!fits(w, groups) || x.rank() != 4 || x.device() != wt.device()) {
            return null;
        }
        return x.backend().conv3x3(x, wt, transposed, ph, pw, mode());
    }

    /**
     * The 3x3 stride-1 convolution's weight gradient {@code [K, C, 3, 3]} from x [N, C, H, W] and g
     * [N, K, OH, OW] by the backend's kernel; null where im2col is to be used.
     */
    static Tensor weightGrad(Tensor x, Tensor g, int ph, int pw) {
        String mode = mode();
        if (mode.equals("im2col") || x.device() != g.device()) {
            return null;
        }
        return x.backend().conv3x3WeightGrad(x, g, ph, pw, mode);
    }
}
