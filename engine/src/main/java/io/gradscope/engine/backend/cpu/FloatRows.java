package io.gradscope.engine.backend.cpu;

import io.gradscope.engine.backend.BinaryKind;
import io.gradscope.engine.backend.UnaryKind;

/**
 * Float32 rows whose strides are 0 or 1 (contiguous, or a broadcast scalar), computed straight on
 * the arrays: simple counted loops the JIT vectorizes. Returns false when it does not apply, and
 * the caller takes the general double-buffer path.
 */
final class FloatRows {
    private FloatRows() {
    }

    static boolean binary(BinaryKind k, float[] a, int ao, int as, float[] b, int bo, int bs, float[] y, int yo, int ys, int n) {
        if (ys != 1 || as > 1 || bs > 1 || as < 0 || bs < 0) {
            return false;
        }
        if (as == 1 && bs == 1) {
            switch (k) {
                case ADD -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] + b[bo + i]; }
                case SUB -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] - b[bo + i]; }
                case MUL -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] * b[bo + i]; }
                case DIV -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] / b[bo + i]; }
                default -> { return false; }
            }
            return true;
        }
        if (as == 1) {
            float s = b[bo];
            switch (k) {
                case ADD -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] + s; }
                case SUB -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] - s; }
                case MUL -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] * s; }
                case DIV -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] / s; }
                default -> { return false; }
            }
            return true;
        }
        if (bs == 1) {
            float s = a[ao];
            switch (k) {
                case ADD -> { for (int i = 0; i < n; i++) y[yo + i] = s + b[bo + i]; }
                case SUB -> { for (int i = 0; i < n; i++) y[yo + i] = s - b[bo + i]; }
                case MUL -> { for (int i = 0; i < n; i++) y[yo + i] = s * b[bo + i]; }
                case DIV -> { for (int i = 0; i < n; i++) y[yo + i] = s / b[bo + i]; }
                default -> { return false; }
            }
            return true;
        }
        return false;
    }

    static boolean unary(UnaryKind k, double p, float[] x, int xo, int xs, float[] y, int yo, int ys, int n) {
        if (xs != 1 || ys != 1) {
            return false;
        }
        switch (k) {
            case NEG -> { for (int i = 0; i < n; i++) y[yo + i] = -x[xo + i]; }
            // NOTE: Math.max, not a branch; NaN propagates through Math.max.
            case RELU -> { for (int i = 0; i < n; i++) y[yo + i] = Math.max(x[xo + i], 0f); }
            case STEP -> { for (int i = 0; i < n; i++) y[yo + i] = x[xo + i] > 0 ? 1f : 0f; }
            case EXP -> { for (int i = 0; i < n; i++) y[yo + i] = (float) Math.exp(x[xo + i]); }
            case TANH -> { for (int i = 0; i < n; i++) y[yo + i] = (float) Math.tanh(x[xo + i]); }
            case POW -> {
                if (p != 2) {
                    return false;
                }
                for (int i = 0; i < n; i++) y[yo + i] = x[xo + i] * x[xo + i];
            }
            default -> { return false; }
        }
        return true;
    }
}
