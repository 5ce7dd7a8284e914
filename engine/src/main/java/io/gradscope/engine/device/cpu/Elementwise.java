package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.UnaryKind;

/** Elementwise math on double buffers; the kind is switched once per chunk. */
final class Elementwise {
    private Elementwise() {
    }

    /**
     * y = k(x) for n elements: the kinds cheap enough that a call per element would cost more than
     * the work (those the JIT vectorises or has an intrinsic for) have a loop of their own, which
     * {@code UnaryKindTest} holds equal to {@link UnaryKind#apply}; every other kind is its scalar
     * function, element by element.
     */
    static void unary(UnaryKind k, double p, double[] x, double[] y, int n) {
        switch (k) {
            case NEG -> { for (int i = 0; i < n; i++) y[i] = -x[i]; }
            case EXP -> { for (int i = 0; i < n; i++) y[i] = Math.exp(x[i]); }
            case LOG -> { for (int i = 0; i < n; i++) y[i] = Math.log(x[i]); }
            case SIN -> { for (int i = 0; i < n; i++) y[i] = Math.sin(x[i]); }
            case COS -> { for (int i = 0; i < n; i++) y[i] = Math.cos(x[i]); }
            case SQRT -> { for (int i = 0; i < n; i++) y[i] = Math.sqrt(x[i]); }
            case ABS -> { for (int i = 0; i < n; i++) y[i] = Math.abs(x[i]); }
            // Math.max, not a branch: random signs make `v > 0 ? v : 0` branch-bound. NaN stays NaN.
            case RELU -> { for (int i = 0; i < n; i++) y[i] = x[i] != x[i] ? x[i] : Math.max(x[i], 0.0); }
            case STEP -> { for (int i = 0; i < n; i++) y[i] = x[i] > 0 ? 1.0 : 0.0; }
            case POW -> {
                if (p == 2) {
                    for (int i = 0; i < n; i++) y[i] = x[i] * x[i];
                } else if (p == 1) {
                    System.arraycopy(x, 0, y, 0, n);
                } else {
                    for (int i = 0; i < n; i++) y[i] = Math.pow(x[i], p);
                }
            }
            default -> { for (int i = 0; i < n; i++) y[i] = k.apply(x[i], p); }
        }
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
