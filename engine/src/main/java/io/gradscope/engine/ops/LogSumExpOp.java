package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/** {@code log Σ exp(x)} over axes, computed max-subtracted. */
final class LogSumExpOp extends Op {
    private final int[] axes;
    private final boolean keepdim;

    LogSumExpOp(int[] axes, boolean keepdim) {
        if (axes != null && axes.length == 0) {
            // PyTorch 1.13 rejects dim=() here (a shape error), so there is no meaning to copy: refuse it plainly.
            throw new io.gradscope.engine.GradscopeException("logsumexp: axis=() is not allowed; give the axes, or None for all");
        }
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

    /** Each output element depends on the elements reduced into it. */
    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        return Dependencies.reduce(shapes[0], Shapes.axes("logsumexp", axes, shapes[0].length));
    }

    /** At these values, the elements whose weight exp(x − y) is not zero (a −∞ is masked out). */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        Tensor x = ctx.input(0);
        int[] g = Dependencies.groups(x.shape(), Shapes.axes("logsumexp", axes, x.rank()));
        double[] xv = x.toDoubleArray();
        double[] yv = ctx.output().toDoubleArray();
        int[] target = new int[xv.length];
        for (int e = 0; e < xv.length; e++) {
            target[e] = Math.exp(xv[e] - yv[g[e]]) != 0 ? g[e] : -1;
        }
        return Pattern.scatter(target, yv.length);
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return VjpReads.of(1, true, 0);
    }

    /** Per element: the maximum, subtracting it, exp, the sum: 4. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return 4 * Shapes.numel(inputs[0]);
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
        Tensor y = Unrecorded.logSumExpKeep(in[0], ax);
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
