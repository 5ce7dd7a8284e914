package io.gradscope.engine.device.cpu;

import java.util.List;
import java.util.Locale;

/**
 * A choice between CPU kernels that computes the same thing, made by measurement on the machine
 * at hand ({@link KernelTuner}): which GEMM float32 and float64 products run on (small, medium and
 * large products), and which kernel float32 3x3 stride-1 convolutions and their two gradients take
 * (small and large planes).
 *
 * <p>Note [Choices by measurement]: a rule about CPU flags was right only on the machines it was
 * tuned on: "the direct 3x3 kernel unless OpenBLAS runs its own AVX-512 kernels" held on one Zen 5
 * and lost on another, and OpenBLAS's dgemm ran at twice our float64 GEMM on a machine whose
 * float32 products were level. So each choice times its candidates on a few shapes of its class,
 * once a machine (CPU model, cores, library versions), and keeps the winner in a cache file; until
 * the measurement is in, {@link KernelTuner#rule} answers.
 */
enum KernelChoice {
    SGEMM_SMALL("float32 products under 16 MFLOP", "native", "java"),
    SGEMM_MEDIUM("float32 products of 16 MFLOP to 1 GFLOP", "native", "java"),
    SGEMM_LARGE("float32 products of 1 GFLOP or more", "native", "java"),
    DGEMM_SMALL("float64 products under 16 MFLOP", "native", "java"),
    DGEMM_MEDIUM("float64 products of 16 MFLOP to 1 GFLOP", "native", "java"),
    DGEMM_LARGE("float64 products of 1 GFLOP or more", "native", "java"),
    CONV_SMALL("float32 3x3 convolutions under 1024 output positions", "direct", "winograd", "im2col"),
    CONV_LARGE("float32 3x3 convolutions of 1024 output positions or more", "direct", "winograd", "im2col"),
    CONV_INPUT_GRAD_SMALL("their input gradients under 1024 positions", "direct", "winograd", "im2col"),
    CONV_INPUT_GRAD_LARGE("their input gradients of 1024 positions or more", "direct", "winograd", "im2col"),
    CONV_WEIGHT_GRAD_SMALL("their weight gradients under 1024 positions", "direct", "winograd", "im2col"),
    CONV_WEIGHT_GRAD_LARGE("their weight gradients of 1024 positions or more", "direct", "winograd", "im2col");

    /** A product of this many flops (2mnk) or more is a medium one, of {@link #LARGE_FLOPS} or more a large one. */
    static final long MEDIUM_FLOPS = 1L << 24;
    static final long LARGE_FLOPS = 1L << 30;
    /** A convolution with this many output positions (images times plane) or more is a large one. */
    static final long LARGE_POSITIONS = 1024;

    /** What it decides, in words. */
    final String what;
    /** The kernels it chooses between. */
    final List<String> candidates;

    KernelChoice(String what, String... candidates) {
        this.what = what;
        this.candidates = List.of(candidates);
    }

    /** Its name in the cache file and in bench's lines, e.g. {@code sgemm-small}. */
    String key() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether it chooses a GEMM (native or java) rather than a convolution kernel. */
    boolean isGemm() {
        return candidates.contains("native");
    }

    /** The choice for one product of {@code flops} (2mnk). */
    static KernelChoice gemm(boolean f32, long flops) {
        if (flops >= LARGE_FLOPS) {
            return f32 ? SGEMM_LARGE : DGEMM_LARGE;
        }
        if (flops >= MEDIUM_FLOPS) {
            return f32 ? SGEMM_MEDIUM : DGEMM_MEDIUM;
        }
        return f32 ? SGEMM_SMALL : DGEMM_SMALL;
    }

    /** The convolution's three computations. */
    enum Conv { FORWARD, INPUT_GRAD, WEIGHT_GRAD }

    /** The choice for one 3x3 convolution (or gradient) with {@code positions} output positions. */
    static KernelChoice conv(Conv kind, long positions) {
        boolean large = positions >= LARGE_POSITIONS;
        return switch (kind) {
            case FORWARD -> large ? CONV_LARGE : CONV_SMALL;
            case INPUT_GRAD -> large ? CONV_INPUT_GRAD_LARGE : CONV_INPUT_GRAD_SMALL;
            case WEIGHT_GRAD -> large ? CONV_WEIGHT_GRAD_LARGE : CONV_WEIGHT_GRAD_SMALL;
        };
    }

    /** The one with this {@link #key}, or null. */
    static KernelChoice ofKey(String key) {
        for (KernelChoice c : values()) {
            if (c.key().equals(key)) {
                return c;
            }
        }
        return null;
    }
}
