package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/** torch.index_select(x, dim=axis, index), a 1-D (or 0-d) index. */
final class IndexSelectOp extends Op {
    private final int axis;

    IndexSelectOp(int axis) {
        this.axis = axis;
    }

    @Override
    public String name() {
        return "index_select";
    }

    @Override
    public String label() {
        return "index_select(axis=" + axis + ")";
    }

    @Override
    public String rule() {
        return "dx = the slices of g added at the indices";
    }

    private int ax(int rank) {
        return Shapes.axis("index_select", axis, Math.max(rank, 1));
    }

    @Override
    public Pattern dependencies(int input, int[][] shapes) {
        int[] out = outputShape(shapes, new DType[] {DType.FLOAT64, DType.INT64});
        if (input == 1) {
            return Dependencies.none(out, shapes[1]);
        }
        AxisLines l = AxisLines.of(shapes[0].length == 0 ? new int[] {1} : shapes[0], ax(shapes[0].length));
        int k = Dependencies.numel(shapes[1]);
        return l.pattern(k, j -> AxisLines.range(0, l.n()));
    }

    @Override
    public Pattern localDependencies(int input, OpContext ctx) {
        if (input == 1) {
            return super.localDependencies(input, ctx);
        }
        int[] x = ctx.input(0).shape();
        int[] at = AxisLines.ints(ctx.input(1));
        AxisLines l = AxisLines.of(x.length == 0 ? new int[] {1} : x, ax(x.length));
        return l.pattern(at.length, j -> new int[] {at[j]});
    }

    @Override
    public VjpReads vjpReads(boolean[] needsGrad) {
        return VjpReads.of(2, false, 1);
    }

    @Override
    public int[] outputShape(int[][] shapes, DType[] dtypes) {
        Checks.arity("index_select", shapes, 2);
        Checks.floats("index_select", dtypes, 0);
        IndexOps.checkIndex("index_select", dtypes[1]);
        if (shapes[1].length > 1) {
            throw new GradscopeException("index_select: the index must be 1-D, not shape " + Shapes.str(shapes[1]));
        }
        int a = ax(shapes[0].length);
        if (shapes[0].length == 0) {
            return new int[0];
        }
        int[] out = shapes[0].clone();
        out[a] = Dependencies.numel(shapes[1]);
        return out;
    }

    @Override
    public Tensor forward(OpContext ctx, Tensor... in) {
        Tensor x = in[0];
        int[] shape = outputShape(new int[][] {x.shape(), in[1].shape()}, new DType[] {x.dtype(), in[1].dtype()});
        Tensor xv = x.rank() == 0 ? x.viewReshape(new int[] {1}) : x;
        int a = ax(x.rank());
        int[] at = IndexOps.indices("index_select", in[1], xv.shape()[a]);
        int[] outv = xv.shape();
        outv[a] = at.length;
        Tensor out = Tensor.empty(x.dtype(), x.device(), outv);
        for (int i = 0; i < at.length; i++) {
            x.backend().copy(xv.viewNarrow(a, at[i], 1), out.viewNarrow(a, i, 1));
        }
        return out.viewReshape(shape);
    }

    @Override
    public Tensor[] vjp(OpContext ctx, Tensor g) {
        Tensor x = ctx.input(0);
        if (x.rank() == 0) {
            return new Tensor[] {Ops.reshape(g, x.shape()), null};
        }
        int a = ax(x.rank());
        // the index spread over g's shape: index_select is gather with it, so its VJP is scatter_add
        int[] at = AxisLines.ints(ctx.input(1));
        int[] gs = g.shape();
        AxisLines l = AxisLines.of(gs, a);
        double[] full = new double[Dependencies.numel(gs)];
        for (int o = 0; o < l.outer(); o++) {
            for (int j = 0; j < l.n(); j++) {
                for (int i = 0; i < l.inner(); i++) {
                    full[l.at(o, j, i)] = at[j];
                }
            }
        }
        Tensor index = Tensor.fromDoubles(DType.INT64, g.device(), full, gs);
        Tensor zero = Tensor.zeros(g.dtype(), g.device(), x.shape());
        return new Tensor[] {Ops.apply(new IndexOps.ScatterAdd(axis), zero, index, g), null};
    }

    @Override
    public String jvpRule() {
        return "ẏ = index_select(ẋ, axis, index)";
    }

    @Override
    public Tensor jvp(OpContext ctx, Tensor... t) {
        return Ops.apply(this, t[0], ctx.input(1));
    }
}
