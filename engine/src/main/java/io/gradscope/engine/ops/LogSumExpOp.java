package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/** {@code log Σ exp(x)} over axes, computed max-subtracted. */
final class LogSumExpOp extends Op {
    private final int[] axes;
    private final boolean keepdim;

    LogSumExpOp(int[] axes, boolean keepdim) {
        this.axes = axes == null ? null : axes.clone();
        this.keepdim = keepdim;
    }

    @Override
    public String name() {
        return "logsumexp";
    }

    @Override
    public String label() {
        return "logsumexp(" + Checks.axesText(axes) + (keepdim ? ", keepdim=True" : "") + ")";
    }

    @Override
    public String rule() {
        return "dx = broadcast(g) ⊙ exp(x − y)";
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return VjpReads.of(1, true, 0);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("logsumexp", shapes, 1);
        Checks.floats("logsumexp", dtypes, 0);
        int[] ax = Shapes.axes("logsumexp", axes, shapes[0].length);
        return keepdim ? Shapes.keepDims(shapes[0], ax) : Shapes.dropDims(shapes[0], ax);
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        int[] ax = Shapes.axes("logsumexp", axes, in[0].rank());
        Tensor y = Raw.logSumExpKeep(in[0], ax);
        return keepdim ? y : y.viewReshape(Shapes.dropDims(in[0].shape(), ax));
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor x = ctx.input(0);
        int[] keep = Shapes.keepDims(x.shape(), Shapes.axes("logsumexp", axes, x.rank()));
        Tensor p = Ops.exp(Ops.sub(x, Ops.reshape(ctx.output(), keep)));
        return new Tensor[] {Ops.mul(Ops.reshape(g, keep), p)};
    }

    @Override
    public String jvpRule() {
        return "ẏ = Σ ẋ ⊙ exp(x − y)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor x = ctx.input(0);
        int[] ax = Shapes.axes("logsumexp", axes, x.rank());
        Tensor p = Ops.exp(Ops.sub(x, Ops.reshape(ctx.output(), Shapes.keepDims(x.shape(), ax))));
        return Ops.sum(Ops.mul(t[0], p), ax, keepdim);
    }
}
