package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;

/** {@code x ** c} for a constant exponent c. */
final class PowOp extends Op {
    private final double exponent;

    PowOp(double exponent) {
        this.exponent = exponent;
    }

    @Override
    public String name() {
        return "pow";
    }

    @Override
    public String label() {
        return "pow(" + NumberText.text(exponent) + ")";
    }

    @Override
    public String rule() {
        return "dx = g ⊙ c·x^(c−1)";
    }

    /** The diagonal (nothing for the exponent 0: a constant). */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int n = Dependencies.numel(shapes[0]);
        return exponent == 0 ? Pattern.empty(n, n) : Pattern.identity(n);
    }

    /** The diagonal where c·x^(c−1) is not zero (x = 0 for c > 1). */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        try (var off = GradMode.disable()) {
            return Dependencies.diagonalWhere(derivative(ctx).viewExpand(ctx.input(0).shape()).toDoubleArray());
        }
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return VjpReads.of(1, false, 0);
    }

    /** x ** c for each element. */
    @Override
    public ScalarForm scalarForm() {
        return new ScalarForm.Elementwise(t -> t.pow(exponent));
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("pow", shapes, 1);
        Checks.floats("pow", dtypes, 0);
        return shapes[0].clone();
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        // PyTorch computes x ** 0.5 as sqrt(x) and x ** −0.5 as rsqrt(x), which are NaN at −∞ where
        // C's pow gives +∞ and 0; the same here, so the edges (and the derivative through them) agree.
        if (exponent == 0.5) {
            return Unrecorded.unary(UnaryKind.SQRT, in[0]);
        }
        if (exponent == -0.5) {
            return Unrecorded.binary(io.gradscope.engine.tensor.BinaryKind.DIV, Unrecorded.scalarLike(in[0], 1), Unrecorded.unary(UnaryKind.SQRT, in[0]));
        }
        return Unrecorded.unary(UnaryKind.POW, exponent, in[0]);
    }

    private Tensor derivative(OpContext ctx) {
        Tensor x = ctx.input(0);
        if (exponent == 0) {
            return Ops.constant(0, x);
        }
        Tensor xp = exponent == 1 ? Ops.constant(1, x) : Ops.pow(x, exponent - 1);
        return Ops.mul(xp, exponent);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        return new Tensor[] {Ops.mul(g, derivative(ctx))};
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        return Ops.mul(t[0], derivative(ctx));
    }

    @Override
    public String jvpRule() {
        return "ẏ = ẋ ⊙ c·x^(c−1)";
    }
}
