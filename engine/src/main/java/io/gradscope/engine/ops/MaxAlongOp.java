package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * torch.max(x, dim) / torch.min(x, dim), the values (the indices are not a float tensor, and an op
 * has one output). Unlike amax, the gradient goes to one element: the index PyTorch returns. Without
 * an axis, torch.max(x) / torch.min(x): the extreme of every element, its gradient shared evenly by
 * the elements equal to it (the NaNs where it is NaN), as PyTorch's evenly_distribute_backward.
 */
final class MaxAlongOp extends Op {
    private final boolean min;
    /** The axis, or null: every element. */
    private final Integer axis;
    private final boolean keepdim;

    MaxAlongOp(boolean min, Integer axis, boolean keepdim) {
        this.min = min;
        this.axis = axis;
        this.keepdim = keepdim;
    }

    @Override
    public String name() {
        return min ? "min" : "max";
    }

    @Override
    public String label() {
        return axis == null && !keepdim ? name() : name() + "(axis=" + axis + (keepdim ? ", keepdim=True" : "") + ")";
    }

    @Override
    public String rule() {
        return axis == null ? "dx = g shared by the elements equal to y (the NaNs where y is NaN)"
                : "dx = g at the first " + (min ? "minimum" : "maximum") + " (or first NaN) along the axis";
    }

    private int ax(int rank) {
        return Shapes.axis(name(), axis, Math.max(rank, 1));
    }

    /** The axes reduced: the one axis, or every axis (none of a 0-d x). */
    private int[] axes(int rank) {
        return axis == null ? Shapes.axes(name(), null, rank) : rank == 0 ? new int[0] : new int[] {ax(rank)};
    }

    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        return shapes[0].length == 0 ? Pattern.identity(1) : Dependencies.reduce(shapes[0], axes(shapes[0].length));
    }

    /** At these values, the element the gradient goes to. */
    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        double[] pick = ctx.saved(0).toDoubleArray();
        int[] shape = ctx.input(0).shape();
        int[] groups = shape.length == 0 ? new int[] {0} : Dependencies.groups(shape, axes(shape.length));
        int[] target = new int[pick.length];
        for (int e = 0; e < pick.length; e++) {
            target[e] = pick[e] != 0 ? groups[e] : -1;
        }
        return Pattern.scatter(target, Dependencies.numel(ctx.output().shape()));
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return VjpReads.none(1);
    }

    /** One comparison per input element. */
    @Override
    public long flops(int[][] inputs, int[] output) {
        return Shapes.numel(inputs[0]);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity(name(), shapes, 1);
        Checks.floats(name(), dtypes, 0);
        if (shapes[0].length == 0) {
            axes(0);
            return new int[0];
        }
        int[] a = axes(shapes[0].length);
        if (axis == null && Shapes.numel(shapes[0]) == 0) {
            throw new io.gradscope.engine.GradscopeException(name() + ": cannot reduce the empty shape " + Shapes.str(shapes[0])
                    + " without an axis");
        }
        if (axis != null && shapes[0][a[0]] == 0) {
            throw new io.gradscope.engine.GradscopeException(name() + ": cannot reduce over axis " + axis + " of size 0 in shape "
                    + Shapes.str(shapes[0]));
        }
        return keepdim ? Shapes.keepDims(shapes[0], a) : Shapes.dropDims(shapes[0], a);
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        int[] out = outputShape(new int[][] {in[0].shape()}, new DType[] {in[0].dtype()});
        Tensor x = in[0].rank() == 0 || axis == null ? in[0].reshapeOrCopy(new int[] {(int) in[0].numel()}) : in[0];
        int d = axis == null ? 0 : ax(x.rank());
        Tensor v = min ? Unrecorded.mulScalar(x, -1) : x;
        Tensor best = Unrecorded.reduce(ReduceKind.MAX, v, new int[] {d}, true);
        if (axis == null) {
            // every element equal to the extreme (or every NaN where it is NaN) takes an even share
            Tensor equal = Double.isNaN(best.toDoubleArray()[0]) ? Unrecorded.isNan(v) : Unrecorded.binary(BinaryKind.EQ, v, best);
            Tensor count = Unrecorded.reduce(ReduceKind.SUM, equal, new int[] {0}, true);
            ctx.save(Unrecorded.binary(BinaryKind.DIV, equal, count).viewReshape(in[0].shape()));
            return (min ? Unrecorded.mulScalar(best, -1) : best).viewReshape(out);
        }
        // the gradient goes to the first maximum (the index torch.max returns), or the first NaN where
        // the line holds one: ties score n − position, NaNs 2n + 1 − position, and the highest score wins.
        int n = x.shape()[d];
        double[] first = new double[n];
        double[] nanFirst = new double[n];
        for (int i = 0; i < n; i++) {
            first[i] = n - i;
            nanFirst[i] = 2 * n + 1 - i;
        }
        int[] along = new int[x.rank()];
        java.util.Arrays.fill(along, 1);
        along[d] = n;
        Tensor score = Unrecorded.binary(BinaryKind.ADD,
                Unrecorded.binary(BinaryKind.MUL, Unrecorded.binary(BinaryKind.EQ, v, best), Tensor.fromDoubles(x.dtype(), x.device(), first, along)),
                Unrecorded.binary(BinaryKind.MUL, Unrecorded.isNan(v), Tensor.fromDoubles(x.dtype(), x.device(), nanFirst, along)));
        Tensor pick = Unrecorded.binary(BinaryKind.EQ, score, Unrecorded.reduce(ReduceKind.MAX, score, new int[] {d}, true));
        ctx.save(pick.viewReshape(in[0].shape()));
        return (min ? Unrecorded.mulScalar(best, -1) : best).viewReshape(out);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor x = ctx.input(0);
        int[] keep = Shapes.keepDims(x.shape(), axes(x.rank()));
        return new Tensor[] {Ops.mul(Ops.broadcastTo(Ops.reshape(g, keep), x.shape()), ctx.saved(0))};
    }

    @Override
    public String jvpRule() {
        return "ẏ = ẋ at the element the gradient goes to";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        Tensor x = ctx.input(0);
        if (x.rank() == 0) {
            return Ops.mul(t[0], ctx.saved(0));
        }
        return Ops.sum(Ops.mul(t[0], ctx.saved(0)), axes(x.rank()), keepdim);
    }
}
