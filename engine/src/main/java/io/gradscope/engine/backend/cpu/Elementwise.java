package io.gradscope.engine.backend.cpu;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.UnaryKind;

/** Elementwise math on double buffers; the kind is switched once per chunk, never per element. */
final class Elementwise {
    private Elementwise() {
    }

    private static final double SQRT_2_OVER_PI = Math.sqrt(2.0 / Math.PI);
    private static final double GELU_C = 0.044715;
    private static final double SOFTPLUS_THRESHOLD = 20.0;

    static void unary(UnaryKind k, double p, double[] x, double[] y, int n) {
        switch (k) {
            case NEG -> { for (int i = 0; i < n; i++) y[i] = -x[i]; }
            case EXP -> { for (int i = 0; i < n; i++) y[i] = Math.exp(x[i]); }
            case LOG -> { for (int i = 0; i < n; i++) y[i] = Math.log(x[i]); }
            case SQRT -> { for (int i = 0; i < n; i++) y[i] = Math.sqrt(x[i]); }
            case ABS -> { for (int i = 0; i < n; i++) y[i] = Math.abs(x[i]); }
            // sign(0) = 0, so abs has subgradient 0 at 0, as in PyTorch.
            case SIGN -> { for (int i = 0; i < n; i++) y[i] = Math.signum(x[i]); }
            case SIN -> { for (int i = 0; i < n; i++) y[i] = Math.sin(x[i]); }
            case COS -> { for (int i = 0; i < n; i++) y[i] = Math.cos(x[i]); }
            case TANH -> { for (int i = 0; i < n; i++) y[i] = Math.tanh(x[i]); }
            case SIGMOID -> { for (int i = 0; i < n; i++) y[i] = sigmoid(x[i]); }
            // Math.max, not a branch: random signs make `v > 0 ? v : 0` branch-bound. NaN stays NaN.
            case RELU -> { for (int i = 0; i < n; i++) y[i] = x[i] != x[i] ? x[i] : Math.max(x[i], 0.0); }
            // ReLU's subgradient at 0 is 0, as in PyTorch.
            case STEP -> { for (int i = 0; i < n; i++) y[i] = x[i] > 0 ? 1.0 : 0.0; }
            case SOFTPLUS -> { for (int i = 0; i < n; i++) y[i] = softplus(x[i]); }
            case SOFTPLUS_GRAD -> { for (int i = 0; i < n; i++) y[i] = softplusGrad(x[i]); }
            case GELU -> { for (int i = 0; i < n; i++) y[i] = gelu(x[i]); }
            case GELU_GRAD -> { for (int i = 0; i < n; i++) y[i] = geluGrad(x[i]); }
            case FINITE_OR_ZERO -> { for (int i = 0; i < n; i++) y[i] = Double.isFinite(x[i]) ? x[i] : 0.0; }
            case ERF -> { for (int i = 0; i < n; i++) y[i] = ErrorFunction.erf(x[i]); }
            case POW -> {
                if (p == 2) {
                    for (int i = 0; i < n; i++) y[i] = x[i] * x[i];
                } else if (p == 1) {
                    System.arraycopy(x, 0, y, 0, n);
                } else {
                    for (int i = 0; i < n; i++) y[i] = Math.pow(x[i], p);
                }
            }
        }
    }

    static double softplus(double v) {
        return v > SOFTPLUS_THRESHOLD ? v : Math.log1p(Math.exp(v));
    }

    static double softplusGrad(double v) {
        return v > SOFTPLUS_THRESHOLD ? 1.0 : sigmoid(v);
    }

    static double gelu(double v) {
        return 0.5 * v * (1 + Math.tanh(SQRT_2_OVER_PI * (v + GELU_C * v * v * v)));
    }

    static double geluGrad(double v) {
        double t = Math.tanh(SQRT_2_OVER_PI * (v + GELU_C * v * v * v));
        double dInner = SQRT_2_OVER_PI * (1 + 3 * GELU_C * v * v);
        return 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * dInner;
    }

    static double sigmoid(double v) {
        // Stable on both sides: no exp of a large positive number.
        if (v >= 0) {
            return 1.0 / (1.0 + Math.exp(-v));
        }
        double e = Math.exp(v);
        return e / (1.0 + e);
    }

    static void binary(BinaryKind k, double[] a, double[] b, double[] y, int n) {
        switch (k) {
            case ADD -> { for (int i = 0; i < n; i++) y[i] = a[i] + b[i]; }
            case SUB -> { for (int i = 0; i < n; i++) y[i] = a[i] - b[i]; }
            case MUL -> { for (int i = 0; i < n; i++) y[i] = a[i] * b[i]; }
            case DIV -> { for (int i = 0; i < n; i++) y[i] = a[i] / b[i]; }
            case MAX -> { for (int i = 0; i < n; i++) y[i] = Math.max(a[i], b[i]); }
            case MIN -> { for (int i = 0; i < n; i++) y[i] = Math.min(a[i], b[i]); }
            case EQ -> { for (int i = 0; i < n; i++) y[i] = a[i] == b[i] ? 1.0 : 0.0; }
            case GT -> { for (int i = 0; i < n; i++) y[i] = a[i] > b[i] ? 1.0 : 0.0; }
        }
    }
}
