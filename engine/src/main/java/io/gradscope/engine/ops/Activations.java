package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;

/**
 * The parts of the activations too long for a line of {@code OpSpecs} (which declares each through
 * {@code elementwise(spec, parts)}): GELU (exact, and tanh's with a kernel of its own), leaky_relu,
 * elu, hardtanh, hardswish, hardsigmoid and mish. Each gives a {@link UnaryOp.Builder} its forward
 * (from existing primitives, so the CUDA backend runs them through its kernels), its rule and its
 * derivative in differentiable ops. At NaN and ±∞ they give PyTorch's values and gradients (the op
 * table's edge rows hold them to it).
 */
final class Activations {
    private Activations() {
    }

    private static final double INV_SQRT2 = 1 / Math.sqrt(2);
    private static final double INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

    private static Tensor scalar(Tensor like, double v) {
        return Unrecorded.scalarLike(like, v);
    }

    /** 1 where x > t, or x is NaN; else 0 (PyTorch's backward kernels test {@code x <= t}, which a NaN fails). */
    static Tensor notAtMost(Tensor x, double t) {
        return Unrecorded.binary(BinaryKind.ADD, Unrecorded.binary(BinaryKind.GT, x, scalar(x, t)), Unrecorded.isNan(x));
    }

    /** max(x, 0) + c·min(x, 0): x where x > 0, c·x elsewhere, infinities and NaN included. */
    private static Tensor twoSlopes(Tensor x, Tensor negativePart) {
        return Unrecorded.binary(BinaryKind.ADD, Unrecorded.binary(BinaryKind.MAX, x, scalar(x, 0)), negativePart);
    }

    /** F.gelu(x): x·Φ(x), Φ the normal CDF, through erf. */
    static UnaryOp.Builder geluExact(UnaryOp.Builder f) {
        return f.rule("dx = g ⊙ (Φ(x) + x·φ(x)), Φ(x) = ½(1 + erf(x/√2)), φ(x) = exp(−x²/2)/√(2π)")
                .forward(x -> Unrecorded.binary(BinaryKind.MUL, Unrecorded.mulScalar(x, 0.5),
                        Unrecorded.binary(BinaryKind.ADD, scalar(x, 1), Erf.forward(Unrecorded.mulScalar(x, INV_SQRT2)))))
                .derivative((x, y) -> {
                    Tensor cdf = Ops.mul(Ops.add(Ops.erf(Ops.mul(x, INV_SQRT2)), 1), 0.5);
                    Tensor pdf = Ops.mul(Ops.exp(Ops.mul(Ops.mul(x, x), -0.5)), INV_SQRT_2PI);
                    return Ops.add(cdf, Ops.mul(x, pdf));
                });
    }

    /** F.gelu(x, approximate="tanh"), with a kernel of its own (and one for its derivative). */
    static UnaryOp.Builder geluTanh(UnaryOp.Builder f) {
        return f.forward(x -> Unrecorded.unary(UnaryKind.GELU, x))
                .rule("dx = g ⊙ (½(1 + t) + ½x(1 − t²)·√(2/π)(1 + 3·0.044715x²)), t = tanh(√(2/π)(x + 0.044715x³))")
                .derivative(Activations::geluTanhDerivative).fusedDerivative((x, y) -> Unrecorded.unary(UnaryKind.GELU_GRAD, x));
    }

    private static final double GELU_K = UnaryKind.SQRT_2_OVER_PI;
    private static final double GELU_C = UnaryKind.GELU_C;

    /** ½(1 + t) + ½x(1 − t²)·k(1 + 3c·x²), t = tanh(k(x + c·x³)), in differentiable ops. */
    private static Tensor geluTanhDerivative(Tensor x, Tensor y) {
        Tensor x2 = Ops.mul(x, x);
        Tensor t = Ops.tanh(Ops.mul(Ops.add(x, Ops.mul(Ops.mul(x2, x), GELU_C)), GELU_K));
        Tensor one = Ops.constant(1, x);
        Tensor left = Ops.mul(Ops.add(t, 1), 0.5);
        Tensor slope = Ops.mul(Ops.add(Ops.mul(x2, 3 * GELU_C), 1), GELU_K);
        Tensor right = Ops.mul(Ops.mul(Ops.mul(x, Ops.sub(one, Ops.mul(t, t))), slope), 0.5);
        return Ops.add(left, right);
    }

    /** F.leaky_relu(x, negative_slope). */
    static UnaryOp.Builder leakyRelu(UnaryOp.Builder f, double slope) {
        // the slope at 0 is negative_slope, and a NaN takes it too (PyTorch's `x > 0 ? g : g·slope`).
        return f.rule("dx = g ⊙ (x > 0 ? 1 : negative_slope)")
                .forward(x -> twoSlopes(x, Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.MIN, x, scalar(x, 0)), slope)))
                .derivative((x, y) -> Unrecorded.binary(BinaryKind.ADD, scalar(x, slope),
                        Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.GT, x, scalar(x, 0)), 1 - slope)));
    }

    /** F.elu(x, alpha). */
    static UnaryOp.Builder elu(UnaryOp.Builder f, double alpha) {
        // at 0 the gradient is alpha (the x ≤ 0 side, as PyTorch's elu_backward); a NaN passes g.
        return f.rule("dx = g ⊙ (x > 0 ? 1 : alpha·exp(x))")
                .forward(x -> twoSlopes(x, Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.SUB,
                        Unrecorded.unary(UnaryKind.EXP, Unrecorded.binary(BinaryKind.MIN, x, scalar(x, 0))), scalar(x, 1)), alpha)))
                .derivative((x, y) -> WhereOp.of(notAtMost(x, 0), Ops.constant(1, x), Ops.mul(Ops.exp(x), alpha)));
    }

    /** F.hardtanh(x, min_val, max_val). */
    static UnaryOp.Builder hardtanh(UnaryOp.Builder f, double lo, double hi) {
        // the gradient is 0 at min_val and max_val themselves and passed through at NaN, as in PyTorch's
        // hardtanh_backward (x ≤ min_val or x ≥ max_val blocks it).
        return f.rule("dx = g ⊙ [not (x ≤ min_val or x ≥ max_val)]")
                .forward(x -> Unrecorded.binary(BinaryKind.MIN, Unrecorded.binary(BinaryKind.MAX, x, scalar(x, lo)), scalar(x, hi)))
                .derivative((x, y) -> Unrecorded.binary(BinaryKind.ADD, Unrecorded.binary(BinaryKind.MUL,
                        Unrecorded.binary(BinaryKind.GT, x, scalar(x, lo)), Unrecorded.binary(BinaryKind.GT, scalar(x, hi), x)), Unrecorded.isNan(x)));
    }

    /** relu6(x + 3) / 6, in primitives. */
    private static Tensor hardSigmoidRaw(Tensor x) {
        Tensor clipped = Unrecorded.binary(BinaryKind.MIN, Unrecorded.binary(BinaryKind.MAX, Unrecorded.binary(BinaryKind.ADD, x, scalar(x, 3)),
                scalar(x, 0)), scalar(x, 6));
        return Unrecorded.mulScalar(clipped, 1.0 / 6);
    }

    /** F.hardswish(x) = x·relu6(x + 3)/6. */
    static UnaryOp.Builder hardswish(UnaryOp.Builder f) {
        // PyTorch's hardswish_backward: 0 below −3, x/3 + ½ on [−3, 3], 1 above (and at NaN).
        return f.rule("dx = g ⊙ (x < −3 ? 0 : x ≤ 3 ? x/3 + ½ : 1)")
                .forward(x -> Unrecorded.binary(BinaryKind.MUL, x, hardSigmoidRaw(x)))
                .derivative((x, y) -> {
                    Tensor below = Unrecorded.binary(BinaryKind.GT, scalar(x, -3), x);
                    Tensor middle = Unrecorded.binary(BinaryKind.SUB, scalar(x, 1), notAtMost(x, 3));
                    Tensor inner = WhereOp.of(middle, Ops.add(Ops.mul(x, 1.0 / 3), 0.5), Ops.constant(1, x));
                    return WhereOp.of(below, Ops.constant(0, x), inner);
                });
    }

    /** F.hardsigmoid(x) = relu6(x + 3)/6. */
    static UnaryOp.Builder hardsigmoid(UnaryOp.Builder f) {
        // the gradient is 0 at −3 and 3 themselves and at NaN (PyTorch's `−3 < x < 3 ? g/6 : 0`). PyTorch 1.13
        // scales by 1/6 rounded to float32 (`1.0f / 6.0f`) even in float64; so does this, to agree to the last digits.
        return f.rule("dx = g ⊙ [−3 < x < 3] / 6").forward(Activations::hardSigmoidRaw)
                .derivative((x, y) -> Unrecorded.mulScalar(Unrecorded.binary(BinaryKind.MUL, Unrecorded.binary(BinaryKind.GT, x, scalar(x, -3)),
                        Unrecorded.binary(BinaryKind.GT, scalar(x, 3), x)), 1.0f / 6.0f));
    }

    /** F.mish(x) = x·tanh(softplus(x)). */
    static UnaryOp.Builder mish(UnaryOp.Builder f) {
        return f.rule("dx = g ⊙ (t + x·sigmoid(x)·(1 − t²)), t = tanh(softplus(x))")
                .forward(x -> Unrecorded.binary(BinaryKind.MUL, x, Unrecorded.unary(UnaryKind.TANH, Unrecorded.unary(UnaryKind.SOFTPLUS, x))))
                .derivative((x, y) -> {
                    Tensor t = Ops.tanh(Ops.softplus(x));
                    Tensor rest = Ops.mul(Ops.mul(x, Ops.sigmoid(x)), Ops.sub(Ops.constant(1, x), Ops.mul(t, t)));
                    return Ops.add(t, rest);
                });
    }
}
