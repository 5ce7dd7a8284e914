package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/** F.mse_loss(a, b): the mean of (a − b)² (broadcasting as PyTorch does). */
final class MseOp extends Op {
    static final MseOp INSTANCE = new MseOp();

    @Override
    public String name() {
        return "mse";
    }

    @Override
    public String rule() {
        return "da = g ⊙ 2(a − b)/n, db = −da";
    }

    /** The mean depends on every element of both inputs (nothing when the broadcast shape is empty). */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        long n = Shapes.numel(Shapes.broadcast("mse", shapes[0], shapes[1]));
        return n > 0 ? Dependencies.all(new int[0], shapes[input]) : Dependencies.none(new int[0], shapes[input]);
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return VjpReads.of(2, false, 0, 1);
    }

    /** Per element of the broadcast pair: subtract, square, sum: 3. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return 3 * Shapes.numel(Shapes.broadcast("mse", inputs[0], inputs[1]));
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("mse", shapes, 2);
        Checks.floats("mse", dtypes, 0, 1);
        Shapes.broadcast("mse", shapes[0], shapes[1]);
        return new int[0];
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor d = Unrecorded.binary(BinaryKind.SUB, in[0], in[1]);
        Tensor sq = Unrecorded.binary(BinaryKind.MUL, d, d);
        return Unrecorded.mulScalar(Unrecorded.reduce(ReduceKind.SUM, sq, Shapes.axes("mse", null, sq.rank()), false), 1.0 / d.numel());
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor a = ctx.input(0);
        Tensor b = ctx.input(1);
        Tensor diff = Ops.sub(a, b);
        Tensor d = Ops.mul(Ops.mul(diff, 2.0 / diff.numel()), g);
        return new Tensor[] {
            ctx.needsGrad(0) ? Ops.sumTo(d, a) : null,
            ctx.needsGrad(1) ? Ops.sumTo(Ops.neg(d), b) : null};
    }

    @Override
    public String jvpRule() {
        return "ẏ = Σ 2(a − b) ⊙ (ȧ − ḃ) / n";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor diff = Ops.sub(ctx.input(0), ctx.input(1));
        return Ops.mul(Ops.sum(Ops.mul(diff, Ops.sub(t[0], t[1]))), 2.0 / diff.numel());
    }
}
