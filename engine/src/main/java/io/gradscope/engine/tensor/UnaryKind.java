package io.gradscope.engine.tensor;

/** Elementwise primitives of one input. {@code POW} takes the exponent as its parameter. */
public enum UnaryKind {
    NEG, EXP, LOG, SQRT, ABS, SIGN, SIN, COS, TANH, SIGMOID, RELU,
    /** 1 where x > 0, else 0 (ReLU's derivative, with 0 at 0). */
    STEP,
    /** log(1 + e^x), x itself above the threshold 20 (PyTorch's default). */
    SOFTPLUS,
    /** The derivative of SOFTPLUS: sigmoid(x), exactly 1 above the threshold. */
    SOFTPLUS_GRAD,
    /** GELU, tanh approximation. */
    GELU,
    /** The derivative of GELU's tanh approximation. */
    GELU_GRAD,
    POW,
    /** x where finite, else 0. */
    FINITE_OR_ZERO,
    /** The error function (W. J. Cody's rational approximations; exact GELU is built on it). */
    ERF
}
