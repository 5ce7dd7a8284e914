package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;

/**
 * Tensor computations straight on the backend, recording nothing: the vocabulary op forwards are
 * written in. Outputs are new contiguous tensors; those the kernel writes in full are allocated
 * without zeroing ({@link Tensor#empty}), so a reused block is not cleared first.
 */
public final class Unrecorded {
    private Unrecorded() {
    }

    public static Tensor unary(UnaryKind kind, Tensor x) {
        return unary(kind, 0, x);
    }

    public static Tensor unary(UnaryKind kind, double param, Tensor x) {
        Tensor out = Tensor.empty(x.dtype(), x.device(), x.shape());
        x.backend().unary(kind, param, x, out);
        return out;
    }

    public static Tensor binary(BinaryKind kind, Tensor a, Tensor b) {
        if (a.sameShape(b)) {
            Tensor out = Tensor.emptyLike(a);
            a.backend().binary(kind, a, b, out);
            return out;
        }
        int[] shape = Shapes.broadcast("binary", a.shape(), b.shape());
        Tensor out = Tensor.empty(a.dtype(), a.device(), shape);
        a.backend().binary(kind, a.viewExpand(shape), b.viewExpand(shape), out);
        return out;
    }

    /** Reduces over sorted, normalised {@code axes}. */
    public static Tensor reduce(ReduceKind kind, Tensor x, int[] axes, boolean keepdim) {
        int[] keep = Shapes.keepDims(x.shape(), axes);
        Tensor out = Tensor.zeros(x.dtype(), x.device(), keep);
        x.backend().reduce(kind, x, out);
        return keepdim ? out : out.viewReshape(Shapes.dropDims(x.shape(), axes));
    }

    /** 1 where x is NaN, else 0. */
    public static Tensor isNan(Tensor x) {
        return binary(BinaryKind.SUB, scalarLike(x, 1), binary(BinaryKind.EQ, x, x));
    }

    public static Tensor scalarLike(Tensor like, double v) {
        return Tensor.full(like.dtype(), like.device(), v);
    }

    public static Tensor mulScalar(Tensor x, double v) {
        return binary(BinaryKind.MUL, x, scalarLike(x, v));
    }

    /** A contiguous copy. */
    public static Tensor copy(Tensor x) {
        Tensor out = Tensor.empty(x.dtype(), x.device(), x.shape());
        x.backend().copy(x, out);
        return out;
    }

    /** Numerically stable log-sum-exp over sorted, normalised axes (kept). */
    public static Tensor logSumExpKeep(Tensor x, int[] axes) {
        // max-subtracted; an infinite max would give inf - inf = NaN, so it shifts by 0 there (as PyTorch).
        Tensor shift = unary(UnaryKind.FINITE_OR_ZERO, reduce(ReduceKind.MAX, x, axes, true));
        Tensor e = unary(UnaryKind.EXP, binary(BinaryKind.SUB, x, shift));
        Tensor s = reduce(ReduceKind.SUM, e, axes, true);
        return binary(BinaryKind.ADD, unary(UnaryKind.LOG, s), shift);
    }

    /** Softmax over sorted, normalised axes, max-subtracted. */
    public static Tensor softmax(Tensor x, int[] axes) {
        Tensor lse = logSumExpKeep(x, axes);
        return unary(UnaryKind.EXP, binary(BinaryKind.SUB, x, lse));
    }
}
