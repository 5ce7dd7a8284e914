package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * torch.where(condition != 0, a, b) with an int64 condition (a mask: labels of 0 and 1), the three
 * broadcast together. Written from existing primitives without a select kernel: with s = +∞ where the
 * condition holds and −∞ elsewhere, {@code max(min(a, s), min(b, −s))} is a where the condition
 * holds and b elsewhere, infinities included (masked_fill with −inf is the common use). A NaN of the
 * branch not taken does not show (as torch.where), forward and gradients.
 */
final class WhereOp extends Op {
    static final WhereOp INSTANCE = new WhereOp();

    @Override
    public String name() {
        return "where";
    }

    @Override
    public String rule() {
        return "da = where(c, g, 0), db = where(c, 0, g)";
    }

    /**
     * Every output element on the elements of a and of b broadcast onto it (for some condition each
     * is taken); the condition, int64, takes no derivative.
     */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] out = Shapes.broadcast("where", Shapes.broadcast("where", shapes[0], shapes[1]), shapes[2]);
        return input == 0 ? Dependencies.none(out, shapes[0]) : Dependencies.broadcast(out, shapes[input]);
    }

    /** At this condition, each output element on the one branch it takes: a where the condition is not 0, b where it is. */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        if (input == 0) {
            return super.localDependencies(input, ctx);
        }
        int[][] shapes = Dependencies.shapes(ctx);
        int[] out = ctx.output().shape();
        double[] c = ctx.input(0).toDoubleArray();
        int[] at = Dependencies.walk(out, Dependencies.broadcastStrides(shapes[0], out), 0);
        int[] src = Dependencies.walk(out, Dependencies.broadcastStrides(shapes[input], out), 0);
        for (int e = 0; e < src.length; e++) {
            if ((c[at[e]] != 0) != (input == 1)) {
                src[e] = -1;
            }
        }
        return Pattern.gather(src, Dependencies.numel(shapes[input]));
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("where", shapes, 3);
        if (dtypes[0] != DType.INT64) {
            throw new GradscopeException("where: the condition must be an int64 mask (labels), not " + dtypes[0]);
        }
        Checks.floats("where", dtypes, 1, 2);
        return Shapes.broadcast("where", Shapes.broadcast("where", shapes[0], shapes[1]), shapes[2]);
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor a = in[1];
        Tensor b = in[2];
        Tensor c = in[0].to(a.dtype());
        Tensor holds = Unrecorded.binary(BinaryKind.SUB, Unrecorded.scalarLike(a, 1), Unrecorded.binary(BinaryKind.EQ, c, Unrecorded.scalarLike(a, 0)));
        Tensor out = select(holds, a, b);
        int[] shape = outputShape(new int[][] {in[0].shape(), a.shape(), b.shape()}, new DType[] {in[0].dtype(), a.dtype(), b.dtype()});
        return java.util.Arrays.equals(out.shape(), shape) ? out : Unrecorded.copy(out.viewExpand(shape));
    }

    /**
     * a where {@code holds} (a mask of 1 and 0 in a's dtype) is 1, else b, broadcast together; the NaNs
     * of the branch not taken do not show. Records nothing: for other ops' forwards.
     */
    static Tensor select(Tensor holds, Tensor a, Tensor b) {
        Tensor s = Unrecorded.binary(BinaryKind.MUL, Unrecorded.binary(BinaryKind.SUB, Unrecorded.mulScalar(holds, 2), Unrecorded.scalarLike(a, 1)),
                Unrecorded.scalarLike(a, Double.POSITIVE_INFINITY));
        // min and max propagate NaN, so a NaN in the branch not taken would show; torch.where drops it.
        // A branch holding a NaN is taken with its NaNs as 0, and the NaNs of the branch taken are put back.
        Tensor nanTaken = null;
        if (hasNaN(a)) {
            nanTaken = Unrecorded.binary(BinaryKind.MUL, holds, Unrecorded.isNan(a));
            a = nanAsZero(a);
        }
        if (hasNaN(b)) {
            Tensor nb = Unrecorded.binary(BinaryKind.MUL, Unrecorded.binary(BinaryKind.SUB, Unrecorded.scalarLike(b, 1), holds), Unrecorded.isNan(b));
            nanTaken = nanTaken == null ? nb : Unrecorded.binary(BinaryKind.ADD, nanTaken, nb);
            b = nanAsZero(b);
        }
        Tensor pickA = Unrecorded.binary(BinaryKind.MIN, a, s);
        Tensor pickB = Unrecorded.binary(BinaryKind.MIN, b, Unrecorded.mulScalar(s, -1));
        Tensor out = Unrecorded.binary(BinaryKind.MAX, pickA, pickB);
        if (nanTaken != null) {
            // (1 − q) / 0: +∞ where no NaN is taken (min leaves out alone), 0/0 = NaN where one is
            Tensor nan = Unrecorded.binary(BinaryKind.DIV, Unrecorded.binary(BinaryKind.SUB, Unrecorded.scalarLike(out, 1), nanTaken), Unrecorded.scalarLike(out, 0));
            out = Unrecorded.binary(BinaryKind.MIN, out, nan);
        }
        return out;
    }

    /**
     * where(mask, a, b) for a mask of 1 and 0 (any float dtype), recorded: differentiable in a and b
     * (the mask is a constant). For other ops' VJPs and derivatives.
     */
    static Tensor of(Tensor mask, Tensor a, Tensor b) {
        return Ops.apply(INSTANCE, mask.to(DType.INT64), a, b);
    }

    /** Whether x may hold a NaN: its sum is NaN (also for +∞ and −∞ together, which the NaN path handles as well). */
    private static boolean hasNaN(Tensor x) {
        if (x.numel() == 0) {
            return false;
        }
        return Double.isNaN(Unrecorded.reduce(io.gradscope.engine.tensor.ReduceKind.SUM, x, Shapes.axes("where", null, x.rank()), false)
                .toDoubleArray()[0]);
    }

    /** x with each NaN as 0, infinities kept: the finite part, clamped to ±∞ where x is ±∞. */
    private static Tensor nanAsZero(Tensor x) {
        Tensor finite = Unrecorded.unary(io.gradscope.engine.tensor.UnaryKind.FINITE_OR_ZERO, x);
        Tensor zero = Unrecorded.scalarLike(x, 0);
        Tensor half = Unrecorded.scalarLike(x, 0.5);
        // ±0.5 / 0 is ±∞: the upper bound −∞ only where x is −∞, the lower bound +∞ only where x is +∞
        Tensor upper = Unrecorded.binary(BinaryKind.DIV, Unrecorded.binary(BinaryKind.SUB, half,
                Unrecorded.binary(BinaryKind.EQ, x, Unrecorded.scalarLike(x, Double.NEGATIVE_INFINITY))), zero);
        Tensor lower = Unrecorded.binary(BinaryKind.DIV, Unrecorded.binary(BinaryKind.SUB,
                Unrecorded.binary(BinaryKind.EQ, x, Unrecorded.scalarLike(x, Double.POSITIVE_INFINITY)), half), zero);
        return Unrecorded.binary(BinaryKind.MAX, Unrecorded.binary(BinaryKind.MIN, finite, upper), lower);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor c = ctx.input(0);
        Tensor zero = Ops.constant(0, g);
        Tensor da = ctx.needsGrad(1) ? Ops.sumTo(Ops.apply(this, c, g, zero), ctx.input(1)) : null;
        Tensor db = ctx.needsGrad(2) ? Ops.sumTo(Ops.apply(this, c, zero, g), ctx.input(2)) : null;
        return new Tensor[] {null, da, db};
    }

    @Override
    public String jvpRule() {
        return "ẏ = where(condition, ȧ, ḃ)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        return Ops.apply(this, ctx.input(0), t[1], t[2]);
    }
}
