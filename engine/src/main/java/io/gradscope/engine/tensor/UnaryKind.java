package io.gradscope.engine.tensor;

/**
 * Elementwise primitives of one input, each defined once by its scalar function {@link #apply}:
 * the CPU kernels compute it (float32 widened to double and rounded once), or a loop a test holds
 * equal to it (the few cheap kinds with a loop of their own, so the JIT can vectorise them);
 * the CUDA kernels ({@code assets/kernels/gradscope.cu}) are its translation, in this order.
 * {@code POW} takes the exponent as its parameter.
 */
public enum UnaryKind {
    NEG, EXP, LOG, SQRT, ABS,
    /** sign(0) = 0, so abs has subgradient 0 at 0, as in PyTorch; sign(NaN) = NaN. */
    SIGN,
    SIN, COS, TANH,
    /** 1 / (1 + e^−x), written so that no exp of a large positive number is taken. */
    SIGMOID,
    /** max(x, 0); NaN stays NaN and relu(−0) = +0. */
    RELU,
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
    ERF;

    /** √(2/π) and the cubic's coefficient of GELU's tanh approximation (the ops' derivative uses them too). */
    public static final double SQRT_2_OVER_PI = Math.sqrt(2.0 / Math.PI);
    public static final double GELU_C = 0.044715;
    /** Above it softplus is x itself (PyTorch's default threshold, beta 1). */
    public static final double SOFTPLUS_THRESHOLD = 20.0;

    /** The function of this kind at {@code x}; {@code p} is POW's exponent (ignored by the others). */
    public double apply(double x, double p) {
        return switch (this) {
            case NEG -> -x;
            case EXP -> Math.exp(x);
            case LOG -> Math.log(x);
            case SQRT -> Math.sqrt(x);
            case ABS -> Math.abs(x);
            case SIGN -> Math.signum(x);
            case SIN -> Math.sin(x);
            case COS -> Math.cos(x);
            case TANH -> Math.tanh(x);
            case SIGMOID -> sigmoid(x);
            case RELU -> x != x ? x : Math.max(x, 0.0);
            case STEP -> x > 0 ? 1.0 : 0.0;
            case SOFTPLUS -> x > SOFTPLUS_THRESHOLD ? x : Math.log1p(Math.exp(x));
            case SOFTPLUS_GRAD -> x > SOFTPLUS_THRESHOLD ? 1.0 : sigmoid(x);
            case GELU -> 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + GELU_C * x * x * x)));
            case GELU_GRAD -> geluGrad(x);
            case POW -> p == 2 ? x * x : p == 1 ? x : Math.pow(x, p);
            case FINITE_OR_ZERO -> Double.isFinite(x) ? x : 0.0;
            case ERF -> ErrorFunction.erf(x);
        };
    }

    private static double sigmoid(double v) {
        if (v >= 0) {
            return 1.0 / (1.0 + Math.exp(-v));
        }
        double e = Math.exp(v);
        return e / (1.0 + e);
    }

    private static double geluGrad(double v) {
        double t = Math.tanh(SQRT_2_OVER_PI * (v + GELU_C * v * v * v));
        double dInner = SQRT_2_OVER_PI * (1 + 3 * GELU_C * v * v);
        return 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * dInner;
    }
}
