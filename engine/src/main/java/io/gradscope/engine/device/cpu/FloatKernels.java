package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.UnaryKind;

/**
 * Float32 elementwise kernels straight on the arrays, for rows of any stride: the Vector API
 * kernels ({@link VectorFloat}) where the rows are contiguous and the module is there, plain loops
 * otherwise, the same bits either way (Note [Exact operations only] in {@link FloatMath}).
 * Functions that are not exact operations (tanh, log, ...) are computed in double per element and
 * rounded once, as before, whatever the layout.
 */
final class FloatKernels {
    private FloatKernels() {
    }

    static final boolean VECTOR = CpuMatmul.VECTOR;

    static void binary(BinaryKind k, float[] a, int ao, int as, float[] b, int bo, int bs, float[] y, int yo, int ys, int n) {
        if (ys == 1 && VECTOR) {
            if (as == 1 && bs == 1 && VectorElementwise.binary(k, a, ao, b, bo, y, yo, n)) {
                return;
            }
            if (as == 1 && bs == 0 && VectorElementwise.binaryScalar(k, a, ao, b[bo], false, y, yo, n)) {
                return;
            }
            if (as == 0 && bs == 1 && VectorElementwise.binaryScalar(k, b, bo, a[ao], true, y, yo, n)) {
                return;
            }
        }
        binaryPlain(k, a, ao, as, b, bo, bs, y, yo, ys, n);
    }

    static void binaryScalarPlain(BinaryKind k, float[] a, int ao, float s, float[] y, int yo, int n) {
        binaryPlain(k, a, ao, 1, new float[] {s}, 0, 0, y, yo, 1, n);
    }

    static void binaryScalarFirstPlain(BinaryKind k, float s, float[] b, int bo, float[] y, int yo, int n) {
        binaryPlain(k, new float[] {s}, 0, 0, b, bo, 1, y, yo, 1, n);
    }

    static void binaryPlain(BinaryKind k, float[] a, int ao, int as, float[] b, int bo, int bs, float[] y, int yo, int ys, int n) {
        if (as == 1 && bs == 1 && ys == 1) {
            switch (k) {
                case ADD -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] + b[bo + i]; }
                case SUB -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] - b[bo + i]; }
                case MUL -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] * b[bo + i]; }
                case DIV -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] / b[bo + i]; }
                default -> binaryStrided(k, a, ao, as, b, bo, bs, y, yo, ys, n);
            }
            return;
        }
        if (as == 1 && bs == 0 && ys == 1) {
            float s = b[bo];
            switch (k) {
                case ADD -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] + s; }
                case SUB -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] - s; }
                case MUL -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] * s; }
                case DIV -> { for (int i = 0; i < n; i++) y[yo + i] = a[ao + i] / s; }
                default -> binaryStrided(k, a, ao, as, b, bo, bs, y, yo, ys, n);
            }
            return;
        }
        binaryStrided(k, a, ao, as, b, bo, bs, y, yo, ys, n);
    }

    private static void binaryStrided(BinaryKind k, float[] a, int ao, int as, float[] b, int bo, int bs, float[] y, int yo,
                                      int ys, int n) {
        switch (k) {
            case ADD -> { for (int i = 0; i < n; i++) y[yo + i * ys] = a[ao + i * as] + b[bo + i * bs]; }
            case SUB -> { for (int i = 0; i < n; i++) y[yo + i * ys] = a[ao + i * as] - b[bo + i * bs]; }
            case MUL -> { for (int i = 0; i < n; i++) y[yo + i * ys] = a[ao + i * as] * b[bo + i * bs]; }
            case DIV -> { for (int i = 0; i < n; i++) y[yo + i * ys] = a[ao + i * as] / b[bo + i * bs]; }
            case MAX -> { for (int i = 0; i < n; i++) y[yo + i * ys] = Math.max(a[ao + i * as], b[bo + i * bs]); }
            case MIN -> { for (int i = 0; i < n; i++) y[yo + i * ys] = Math.min(a[ao + i * as], b[bo + i * bs]); }
            case EQ -> { for (int i = 0; i < n; i++) y[yo + i * ys] = a[ao + i * as] == b[bo + i * bs] ? 1f : 0f; }
            case GT -> { for (int i = 0; i < n; i++) y[yo + i * ys] = a[ao + i * as] > b[bo + i * bs] ? 1f : 0f; }
        }
    }

    static void unary(UnaryKind k, double p, float[] x, int xo, int xs, float[] y, int yo, int ys, int n) {
        if (VECTOR && xs == 1 && ys == 1 && VectorElementwise.unary(k, p, x, xo, y, yo, n)) {
            return;
        }
        unaryPlain(k, p, x, xo, xs, y, yo, ys, n);
    }

    static void unaryPlain(UnaryKind k, double p, float[] x, int xo, int xs, float[] y, int yo, int ys, int n) {
        switch (k) {
            case NEG -> { for (int i = 0; i < n; i++) y[yo + i * ys] = -x[xo + i * xs]; }
            case ABS -> { for (int i = 0; i < n; i++) y[yo + i * ys] = Math.abs(x[xo + i * xs]); }
            case SQRT -> { for (int i = 0; i < n; i++) y[yo + i * ys] = (float) Math.sqrt(x[xo + i * xs]); }
            // Math.max, not a branch (random signs make a branch slow); NaN stays NaN, relu(−0) = +0.
            case RELU -> { for (int i = 0; i < n; i++) y[yo + i * ys] = Math.max(x[xo + i * xs], 0f); }
            // ReLU's subgradient at 0 is 0, as in PyTorch.
            case STEP -> { for (int i = 0; i < n; i++) y[yo + i * ys] = x[xo + i * xs] > 0 ? 1f : 0f; }
            case SIGN -> { for (int i = 0; i < n; i++) y[yo + i * ys] = Math.signum(x[xo + i * xs]); }
            case EXP -> { for (int i = 0; i < n; i++) y[yo + i * ys] = FloatMath.exp(x[xo + i * xs]); }
            // the JIT's intrinsics, widened and rounded once as viaDouble does
            case LOG -> { for (int i = 0; i < n; i++) y[yo + i * ys] = (float) Math.log(x[xo + i * xs]); }
            case SIN -> { for (int i = 0; i < n; i++) y[yo + i * ys] = (float) Math.sin(x[xo + i * xs]); }
            case COS -> { for (int i = 0; i < n; i++) y[yo + i * ys] = (float) Math.cos(x[xo + i * xs]); }
            case FINITE_OR_ZERO -> {
                for (int i = 0; i < n; i++) {
                    float v = x[xo + i * xs];
                    y[yo + i * ys] = Float.isFinite(v) ? v : 0f;
                }
            }
            case POW -> {
                if (p == 2) {
                    for (int i = 0; i < n; i++) {
                        float v = x[xo + i * xs];
                        y[yo + i * ys] = v * v;
                    }
                } else if (p == 1) {
                    for (int i = 0; i < n; i++) y[yo + i * ys] = x[xo + i * xs];
                } else {
                    for (int i = 0; i < n; i++) y[yo + i * ys] = (float) Math.pow(x[xo + i * xs], p);
                }
            }
            default -> viaDouble(k, p, x, xo, xs, y, yo, ys, n);
        }
    }

    /**
     * The other functions: each element widened to double, computed by its kind's scalar function
     * ({@link UnaryKind#apply}) and rounded once (no buffers; the bits the double path gives).
     */
    private static void viaDouble(UnaryKind k, double p, float[] x, int xo, int xs, float[] y, int yo, int ys, int n) {
        for (int i = 0; i < n; i++) y[yo + i * ys] = (float) k.apply(x[xo + i * xs], p);
    }

    /** dx = g · step(x), any strides. */
    static void reluBackward(float[] x, int xo, int xs, float[] g, int go, int gs, float[] dx, int dxo, int dxs, int n) {
        if (VECTOR && xs == 1 && gs == 1 && dxs == 1) {
            VectorElementwise.reluBackward(x, xo, g, go, dx, dxo, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            dx[dxo + i * dxs] = g[go + i * gs] * (x[xo + i * xs] <= 0 ? 0f : 1f);
        }
    }

    static float sum(float[] x, int o, int n) {
        return VECTOR ? VectorFloat.sum(x, o, n) : FloatMath.sum(x, o, n);
    }

    static float sum(float[] x, int o, int n, FloatMath.Scratch sc) {
        return VECTOR ? VectorFloat.sum(x, o, n, sc) : FloatMath.sum(x, o, n, sc);
    }

    static float dot(float[] a, int ao, float[] b, int bo, int n, FloatMath.Scratch sc) {
        return VECTOR ? VectorFloat.dot(a, ao, b, bo, n, sc) : FloatMath.dot(a, ao, b, bo, n, sc);
    }

    static float dot(float[] a, int ao, float[] b, int bo, int n) {
        return VECTOR ? VectorFloat.dot(a, ao, b, bo, n) : FloatMath.dot(a, ao, b, bo, n);
    }

    static void deviationSums(float[] x, int o, int n, float c, float[] out) {
        if (VECTOR) {
            VectorFloat.deviationSums(x, o, n, c, out);
        } else {
            FloatMath.deviationSums(x, o, n, c, out);
        }
    }

    static void addInto(float[] x, int xo, float[] acc, int ao, int n) {
        if (VECTOR) {
            VectorFloat.addInto(x, xo, acc, ao, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            acc[ao + i] += x[xo + i];
        }
    }

    static void axpy(float alpha, float[] x, int xo, float[] y, int yo, int n) {
        if (VECTOR) {
            VectorFloat.axpy(alpha, x, xo, y, yo, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            y[yo + i] += alpha * x[xo + i];
        }
    }

    // ---- row pieces: the vector kernel or its plain twin -------------------------------------------

    static float max(float[] x, int o, int n) {
        if (VECTOR) {
            return VectorRows.max(x, o, n);
        }
        float r = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            r = Math.max(r, x[o + i]);
        }
        return r;
    }

    static void expShift(float[] x, int xo, float shift, float[] y, int yo, int n) {
        if (VECTOR) {
            VectorRows.expShift(x, xo, shift, y, yo, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            y[yo + i] = FloatMath.exp(x[xo + i] - shift);
        }
    }

    /** y *= s. */
    static void scale(float[] y, int yo, float s, int n) {
        binary(BinaryKind.MUL, y, yo, 1, new float[] {s}, 0, 0, y, yo, 1, n);
    }

    static void normalize(float[] x, int xo, float m, float delta, float r, float[] y, int yo, float[] w, float[] b, float[] out,
                          int oo, int n) {
        if (VECTOR) {
            VectorRows.normalize(x, xo, m, delta, r, y, yo, w, b, out, oo, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            float h = ((x[xo + i] - m) - delta) * r;
            if (y != null) {
                y[yo + i] = h;
            }
            if (out != null) {
                out[oo + i] = Math.fma(h, w[i], b[i]);
            }
        }
    }

    static void layerNormDx(float[] gw, float[] h, float a, float c, float r, float[] dx, int dxo, int n) {
        if (VECTOR) {
            VectorRows.layerNormDx(gw, h, a, c, r, dx, dxo, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            dx[dxo + i] = Math.fma(h[i], -c, gw[i] - a) * r;
        }
    }

    static void fmaInto(float[] a, int ao, float[] b, int bo, float[] acc, int co, int n) {
        if (VECTOR) {
            VectorRows.fmaInto(a, ao, b, bo, acc, co, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            acc[co + i] = Math.fma(a[ao + i], b[bo + i], acc[co + i]);
        }
    }

    static void logSoftmaxDx(float[] y, int yo, float[] g, int go, float s, float[] dx, int xo, int n) {
        if (VECTOR) {
            VectorRows.logSoftmaxDx(y, yo, g, go, s, dx, xo, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            dx[xo + i] = g[go + i] - FloatMath.exp(y[yo + i]) * s;
        }
    }

    static void softmaxDx(float[] y, int yo, float[] g, int go, float s, float[] dx, int xo, int n) {
        if (VECTOR) {
            VectorRows.softmaxDx(y, yo, g, go, s, dx, xo, n);
            return;
        }
        for (int i = 0; i < n; i++) {
            dx[xo + i] = y[yo + i] * (g[go + i] - s);
        }
    }

    static float expSum(float[] x, int xo, float shift, float[] y, int yo, int n, FloatMath.Scratch sc) {
        return VECTOR ? VectorRows.expSum(x, xo, shift, y, yo, n, sc) : FloatMath.expSum(x, xo, shift, y, yo, n, sc);
    }

    static void layerNormBackRow(float[] g, int go, float[] x, int xo, float[] w, float m, float delta, float r, float[] h,
                                 float[] gw, float[] lw, float[] lb, int lo, int n, FloatMath.Scratch sc) {
        if (VECTOR) {
            VectorRows.layerNormBackRow(g, go, x, xo, w, m, delta, r, h, gw, lw, lb, lo, n, sc);
        } else {
            FloatMath.layerNormBackRow(g, go, x, xo, w, m, delta, r, h, gw, lw, lb, lo, n, sc);
        }
    }
}
