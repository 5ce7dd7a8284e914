package io.gradscope.engine.device.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Float32 elementwise kernels on contiguous ranges with the Vector API (binary, binary with a
 * scalar, unary, ReLU's backward); each returns false for a kind it has no vector kernel for, and
 * gives the bits of the plain loops in {@link FloatKernels} (Note [Exact operations only]).
 */
final class VectorElementwise {
    private VectorElementwise() {
    }

    private static final VectorSpecies<Float> S = VectorFloat.S;
    private static final int L = VectorFloat.L;

    /** y = op(a, b) for contiguous a, b; false for kinds without a vector kernel. */
    static boolean binary(io.gradscope.engine.tensor.BinaryKind k, float[] a, int ao, float[] b, int bo, float[] y, int yo, int n) {
        int end = n - n % L;
        int i = 0;
        switch (k) {
            case ADD -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).add(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            case SUB -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).sub(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            case MUL -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).mul(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            case DIV -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).div(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            // As Math.max and Math.min: NaN wins, -0 < +0.
            case MAX -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).max(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            case MIN -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).min(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            case EQ, GT -> {
                FloatVector one = FloatVector.broadcast(S, 1f);
                FloatVector zero = FloatVector.zero(S);
                VectorOperators.Comparison c = k == io.gradscope.engine.tensor.BinaryKind.EQ ? VectorOperators.EQ : VectorOperators.GT;
                for (; i < end; i += L) {
                    zero.blend(one, FloatVector.fromArray(S, a, ao + i).compare(c, FloatVector.fromArray(S, b, bo + i))).intoArray(y, yo + i);
                }
            }
            default -> { return false; }
        }
        FloatKernels.binaryPlain(k, a, ao + i, 1, b, bo + i, 1, y, yo + i, 1, n - i);
        return true;
    }

    /** y = op(a, s) (or op(s, a) with {@code scalarFirst}) for contiguous a. */
    static boolean binaryScalar(io.gradscope.engine.tensor.BinaryKind k, float[] a, int ao, float s, boolean scalarFirst,
                                float[] y, int yo, int n) {
        int end = n - n % L;
        int i = 0;
        switch (k) {
            case ADD -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).add(s).intoArray(y, yo + i); }
            case MUL -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).mul(s).intoArray(y, yo + i); }
            case SUB -> {
                if (scalarFirst) {
                    FloatVector sv = FloatVector.broadcast(S, s);
                    for (; i < end; i += L) sv.sub(FloatVector.fromArray(S, a, ao + i)).intoArray(y, yo + i);
                } else {
                    for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).sub(s).intoArray(y, yo + i);
                }
            }
            case DIV -> {
                if (scalarFirst) {
                    FloatVector sv = FloatVector.broadcast(S, s);
                    for (; i < end; i += L) sv.div(FloatVector.fromArray(S, a, ao + i)).intoArray(y, yo + i);
                } else {
                    for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).div(s).intoArray(y, yo + i);
                }
            }
            default -> { return false; }
        }
        if (scalarFirst) {
            FloatKernels.binaryScalarFirstPlain(k, s, a, ao + i, y, yo + i, n - i);
        } else {
            FloatKernels.binaryScalarPlain(k, a, ao + i, s, y, yo + i, n - i);
        }
        return true;
    }

    /** y = f(x) for contiguous x; false for kinds without a vector kernel. */
    static boolean unary(io.gradscope.engine.tensor.UnaryKind k, double p, float[] x, int xo, float[] y, int yo, int n) {
        int end = n - n % L;
        int i = 0;
        FloatVector zero = FloatVector.zero(S);
        FloatVector one = FloatVector.broadcast(S, 1f);
        switch (k) {
            case NEG -> { for (; i < end; i += L) FloatVector.fromArray(S, x, xo + i).neg().intoArray(y, yo + i); }
            case ABS -> { for (; i < end; i += L) FloatVector.fromArray(S, x, xo + i).abs().intoArray(y, yo + i); }
            case SQRT -> { for (; i < end; i += L) FloatVector.fromArray(S, x, xo + i).sqrt().intoArray(y, yo + i); }
            case RELU -> { for (; i < end; i += L) FloatVector.fromArray(S, x, xo + i).max(0f).intoArray(y, yo + i); }
            case STEP -> {
                for (; i < end; i += L) {
                    // 1 where x > 0: 0 at NaN, as UnaryKind.STEP (relu's derivative adds the NaN lanes itself).
                    VectorMask<Float> pos = FloatVector.fromArray(S, x, xo + i).compare(VectorOperators.GT, 0f);
                    zero.blend(one, pos).intoArray(y, yo + i);
                }
            }
            case EXP -> {
                // exp(x − 0) is exp(x): x − 0 is x exactly.
                VectorRows.expShift(x, xo, 0f, y, yo, n);
                return true;
            }
            case POW -> {
                if (p != 2) {
                    return false;
                }
                for (; i < end; i += L) {
                    FloatVector v = FloatVector.fromArray(S, x, xo + i);
                    v.mul(v).intoArray(y, yo + i);
                }
            }
            default -> { return false; }
        }
        FloatKernels.unaryPlain(k, p, x, xo + i, 1, y, yo + i, 1, n - i);
        return true;
    }

    /** dx = g ⊙ [not x ≤ 0] (ReLU's VJP in one pass: a NaN passes the gradient, as PyTorch's threshold_backward). */
    static void reluBackward(float[] x, int xo, float[] g, int go, float[] dx, int dxo, int n) {
        int end = n - n % L;
        int i = 0;
        FloatVector zero = FloatVector.zero(S);
        FloatVector one = FloatVector.broadcast(S, 1f);
        for (; i < end; i += L) {
            VectorMask<Float> pos = FloatVector.fromArray(S, x, xo + i).compare(VectorOperators.LE, 0f).not();
            FloatVector.fromArray(S, g, go + i).mul(zero.blend(one, pos)).intoArray(dx, dxo + i);
        }
        for (; i < n; i++) {
            dx[dxo + i] = g[go + i] * (x[xo + i] <= 0 ? 0f : 1f);
        }
    }
}
