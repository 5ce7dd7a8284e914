package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;

/**
 * The error function as one elementwise kernel ({@link UnaryKind#ERF}: W. J. Cody's rational
 * approximations on the CPU, within 1e-15 of libm's erf; CUDA's erf on a GPU). It was once written
 * in about a hundred elementwise primitives so that every backend had it; exact GELU, PyTorch's
 * default, made that the cost of every GELU (a hundred passes and temporaries where one will do).
 */
final class Erf {
    private Erf() {
    }

    /** 2/√π, the scale of erf's derivative {@code 2/√π · exp(−x²)}. */
    static final double TWO_OVER_SQRT_PI = 1.1283791670955126;

    static Tensor forward(Tensor x) {
        return Unrecorded.unary(UnaryKind.ERF, x);
    }
}
