package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;

/**
 * torch.var and torch.std over axes (None or (): all) with a correction (1: Bessel's, the default),
 * two-pass: the mean first, then the squared deviations from it.
 */
final class VarianceOp extends Op {
    private final boolean std;
    private final int[] axes;
    private final int correction;
    private final boolean keepdim;

    VarianceOp(boolean std, int[] axes, int correction, boolean keepdim) {
        this.std = std;
        this.axes = axes == null || axes.length == 0 ? null : axes.clone();
        this.correction = correction;
        this.keepdim = keepdim;
    }

    @Override
    public String name() {
        return std ? "std" : "var";
    }

    @Override
    public String label() {
        String a = Checks.axesText(axes);
        String c = correction == 1 ? "" : "correction=" + correction;
        String k = keepdim ? "keepdim=True" : "";
        String args = String.join(", ", java.util.stream.Stream.of(a, c, k).filter(t -> !t.isEmpty()).toList());
        return args.isEmpty() ? name() : name() + "(" + args + ")";
    }

    @Override
    public String rule() {
        return std ? "dx = g ⊙ (x − mean) / ((n − correction)·y)" : "dx = g ⊙ 2(x − mean) / (n − correction)";
    }

    private int[] ax(int rank) {
        return Shapes.axes(name(), axes, rank);
    }

    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        return Dependencies.reduce(shapes[0], ax(shapes[0].length));
    }

    /** Per element of x: the mean 1, centring 1, the square and its sum 1 (the square root is per output, small). */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return 3 * Shapes.numel(inputs[0]) + Shapes.numel(output);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name(), shapes, 1);
        Checks.floats(name(), dtypes, 0);
        int[] a = ax(shapes[0].length);
        return keepdim ? Shapes.keepDims(shapes[0], a) : Shapes.dropDims(shapes[0], a);
    }

    /** n − correction (may be 0 or less: the result is then ∞ or NaN, as PyTorch's). */
    private double dof(int[] shape) {
        return ReduceOp.count(shape, ax(shape.length)) - correction;
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = in[0];
        int[] a = ax(x.rank());
        long n = ReduceOp.count(x.shape(), a);
        Tensor mean = Unrecorded.mulScalar(Unrecorded.reduce(ReduceKind.SUM, x, a, true), 1.0 / n);
        Tensor dev = Unrecorded.binary(BinaryKind.SUB, x, mean);
        Tensor ss = Unrecorded.reduce(ReduceKind.SUM, Unrecorded.binary(BinaryKind.MUL, dev, dev), a, keepdim);
        Tensor var = Unrecorded.binary(BinaryKind.DIV, ss, Unrecorded.scalarLike(x, dof(x.shape())));
        return std ? Unrecorded.unary(UnaryKind.SQRT, var) : var;
    }

    /** ∂y/∂x as a tensor of x's shape, differentiable. */
    private Tensor slope(OpContext ctx) {
        Tensor x = ctx.input(0);
        int[] a = ax(x.rank());
        Tensor dev = Ops.sub(x, Ops.mean(x, a, true));
        if (!std) {
            return Ops.mul(dev, 2 / dof(x.shape()));
        }
        Tensor y = Ops.reshape(ctx.output(), Shapes.keepDims(x.shape(), a));
        return Ops.div(dev, Ops.mul(y, dof(x.shape())));
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor x = ctx.input(0);
        Tensor gb = Ops.broadcastTo(Ops.reshape(g, Shapes.keepDims(x.shape(), ax(x.rank()))), x.shape());
        return new Tensor[] {Ops.mul(gb, slope(ctx))};
    }

    @Override
    public String jvpRule() {
        return "ẏ = Σ ẋ ⊙ ∂y/∂x";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        return Ops.sum(Ops.mul(t[0], slope(ctx)), ax(ctx.input(0).rank()), keepdim);
    }
}
