package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * gather, scatter_add and index_select along an axis, with int64 indices. gather and scatter_add are
 * written from existing primitives: the indices one-hot along the axis ({@code [..., m, n]}), the
 * values selected where it is 1 (a select, so a NaN elsewhere stays out) and summed; each is the
 * other's VJP. index_select copies the picked slices (as embedding copies rows). All linear in their
 * float inputs; the indices take no derivative.
 */
final class IndexOps {
    private IndexOps() {
    }

    static void checkIndex(String op, DType dt) {
        if (dt != DType.INT64) {
            throw new GradscopeException(op + ": the index must be int64 (labels), not " + dt);
        }
    }

    /** The index values, each checked to lie in [0, n). */
    static int[] indices(String op, Tensor index, int n) {
        int[] v = AxisLines.ints(index);
        for (int i = 0; i < v.length; i++) {
            if (v[i] < 0 || v[i] >= n) {
                throw new GradscopeException(op + ": index " + v[i] + " at position " + i + " is out of range for an axis of size " + n);
            }
        }
        return v;
    }

    /** Index and a second tensor of one rank, the index no larger than {@code other} off the axis. */
    static void checkFits(String op, int[] index, int[] other, int axis, String what) {
        boolean ok = index.length == other.length;
        for (int d = 0; ok && d < index.length; d++) {
            ok = d == axis || index[d] <= other[d];
        }
        if (!ok) {
            throw new GradscopeException(op + ": an index of shape " + Shapes.str(index) + " does not fit " + what + " of shape "
                    + Shapes.str(other) + " (same rank, no larger off axis " + axis + ")");
        }
    }

    /** x narrowed to the index's extent on every axis but {@code axis}. */
    static Tensor narrowTo(Tensor x, int[] index, int axis) {
        for (int d = 0; d < index.length; d++) {
            if (d != axis && index[d] != x.shape()[d]) {
                x = x.viewNarrow(d, 0, index[d]);
            }
        }
        return x;
    }

    /** The one-hot of the index along the last axis, {@code [..., m, n]} in {@code dt}. */
    static Tensor oneHot(Tensor indexLast, int n, Tensor like) {
        int[] s = java.util.Arrays.copyOf(indexLast.shape(), indexLast.rank() + 1);
        s[s.length - 1] = n;
        Tensor out = Tensor.empty(like.dtype(), like.device(), s);
        like.backend().oneHot(Unrecorded.copy(indexLast), out);
        return out;
    }

    /**
     * For each element of the index (shape {@code index}), the flat positions of the tensor of shape
     * {@code full} on its line along {@code axis}: every position (global) or the indexed one (local).
     */
    static Pattern lineCoordinates(int[] index, int[] full, int axis, int[] at, boolean outputIsIndex) {
        int numel = Dependencies.numel(index);
        int n = full[axis];
        int[] fs = Shapes.contiguousStrides(full);
        int[] is = Shapes.contiguousStrides(index);
        int per = at == null ? n : 1;
        int[] ri = new int[numel * per];
        int[] ci = new int[numel * per];
        int k = 0;
        for (int e = 0; e < numel; e++) {
            int base = 0;
            for (int d = 0; d < index.length; d++) {
                if (d != axis) {
                    base += (e / is[d]) % index[d] * fs[d];
                }
            }
            for (int p = 0; p < per; p++) {
                int target = base + (at == null ? p : at[e]) * fs[axis];
                ri[k] = outputIsIndex ? e : target;
                ci[k++] = outputIsIndex ? target : e;
            }
        }
        int fullNumel = Dependencies.numel(full);
        return outputIsIndex ? Pattern.fromCoordinates(numel, fullNumel, ri, ci) : Pattern.fromCoordinates(fullNumel, numel, ri, ci);
    }

    /** torch.gather(x, dim=axis, index). */
    static final class Gather extends Op {
        private final int axis;

        Gather(int axis) {
            this.axis = axis;
        }

        @Override
        public String name() {
            return "gather";
        }

        @Override
        public String label() {
            return "gather(axis=" + axis + ")";
        }

        @Override
        public String rule() {
            return "dx = scatter_add(0, axis, index, g)";
        }

        private int ax(int rank) {
            return Shapes.axis("gather", axis, rank);
        }

        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            if (input == 1) {
                return Dependencies.none(shapes[1], shapes[1]);
            }
            return lineCoordinates(shapes[1], shapes[0], ax(shapes[0].length), null, true);
        }

        @Override
        public Pattern localDependencies(int input, OpContext ctx) {
            if (input == 1) {
                return super.localDependencies(input, ctx);
            }
            int[] x = ctx.input(0).shape();
            return lineCoordinates(ctx.input(1).shape(), x, ax(x.length), AxisLines.ints(ctx.input(1)), true);
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.of(2, false, 1);
        }

        /** A one-hot row of the axis per index element, multiplied and summed: 2 per index element per axis position. */
        @Override
        public long flops(int[][] inputs, int[] output) {
            int[] x = inputs[0];
            return 2 * Shapes.numel(inputs[1]) * (x.length == 0 ? 1 : x[Shapes.axis("gather", axis, x.length)]);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("gather", shapes, 2);
            Checks.floats("gather", dtypes, 0);
            checkIndex("gather", dtypes[1]);
            Checks.minRank("gather", shapes[0], 1, "x");
            int a = ax(shapes[0].length);
            checkFits("gather", shapes[1], shapes[0], a, "x");
            return shapes[1].clone();
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            Tensor index = in[1];
            outputShape(new int[][] {x.shape(), index.shape()}, new DType[] {x.dtype(), index.dtype()});
            int a = ax(x.rank());
            int n = x.shape()[a];
            indices("gather", index, n);
            int[] last = AxisOps.Prod.toLast(x.rank(), a);
            Tensor xl = narrowTo(x, index.shape(), a).viewPermute(last);
            Tensor il = index.viewPermute(last);
            Tensor hot = oneHot(il, n, x);
            int[] row = java.util.Arrays.copyOf(xl.shape(), xl.rank() + 1);
            row[row.length - 2] = 1;
            row[row.length - 1] = n;
            Tensor picked = WhereOp.select(hot, Unrecorded.copy(xl).viewReshape(row), Unrecorded.scalarLike(x, 0));
            Tensor sum = Unrecorded.reduce(ReduceKind.SUM, picked, new int[] {picked.rank() - 1}, false);
            return Unrecorded.copy(sum.viewPermute(AxisOps.Prod.back(x.rank(), a)));
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            Tensor x = ctx.input(0);
            Tensor zero = Tensor.zeros(g.dtype(), g.device(), x.shape());
            return new Tensor[] {Ops.apply(new ScatterAdd(axis), zero, ctx.input(1), g), null};
        }

        @Override
        public String jvpRule() {
            return "ẏ = gather(ẋ, axis, index)";
        }

        @Override
        public Tensor jvp(OpContext ctx, Tensor... t) {
            return Ops.apply(this, t[0], ctx.input(1));
        }
    }

    /** torch.scatter_add(x, dim=axis, index, src), with src of the index's shape. */
    static final class ScatterAdd extends Op {
        private final int axis;

        ScatterAdd(int axis) {
            this.axis = axis;
        }

        @Override
        public String name() {
            return "scatter_add";
        }

        @Override
        public String label() {
            return "scatter_add(axis=" + axis + ")";
        }

        @Override
        public String rule() {
            return "dx = g, dsrc = gather(g, axis, index)";
        }

        private int ax(int rank) {
            return Shapes.axis("scatter_add", axis, rank);
        }

        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            return switch (input) {
                case 0 -> Pattern.identity(Dependencies.numel(shapes[0]));
                case 1 -> Dependencies.none(shapes[0], shapes[1]);
                default -> lineCoordinates(shapes[1], shapes[0], ax(shapes[0].length), null, false);
            };
        }

        @Override
        public Pattern localDependencies(int input, OpContext ctx) {
            if (input != 2) {
                return super.localDependencies(input, ctx);
            }
            int[] x = ctx.input(0).shape();
            return lineCoordinates(ctx.input(1).shape(), x, ax(x.length), AxisLines.ints(ctx.input(1)), false);
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.of(3, false, 1);
        }

        /** The gather's transpose: 2 per source element per axis position, plus the add into x. */
        @Override
        public long flops(int[][] inputs, int[] output) {
            int[] x = inputs[0];
            return 2 * Shapes.numel(inputs[2]) * (x.length == 0 ? 1 : x[Shapes.axis("scatter_add", axis, x.length)]) + Shapes.numel(x);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("scatter_add", shapes, 3);
            Checks.floats("scatter_add", dtypes, 0, 2);
            checkIndex("scatter_add", dtypes[1]);
            Checks.minRank("scatter_add", shapes[0], 1, "x");
            if (!java.util.Arrays.equals(shapes[1], shapes[2])) {
                throw new GradscopeException("scatter_add: src must have the index's shape " + Shapes.str(shapes[1]) + ", not "
                        + Shapes.str(shapes[2]));
            }
            checkFits("scatter_add", shapes[1], shapes[0], ax(shapes[0].length), "x");
            return shapes[0].clone();
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            Tensor index = in[1];
            Tensor src = in[2];
            outputShape(new int[][] {x.shape(), index.shape(), src.shape()}, new DType[] {x.dtype(), index.dtype(), src.dtype()});
            int a = ax(x.rank());
            int n = x.shape()[a];
            indices("scatter_add", index, n);
            int[] last = AxisOps.Prod.toLast(x.rank(), a);
            Tensor hot = oneHot(index.viewPermute(last), n, x);
            Tensor sl = Unrecorded.copy(src.viewPermute(last));
            int[] col = java.util.Arrays.copyOf(sl.shape(), sl.rank() + 1);
            col[col.length - 1] = 1;
            Tensor spread = WhereOp.select(hot, sl.viewReshape(col), Unrecorded.scalarLike(x, 0));
            Tensor sum = Unrecorded.reduce(ReduceKind.SUM, spread, new int[] {spread.rank() - 2}, false);
            Tensor add = sum.viewPermute(AxisOps.Prod.back(x.rank(), a));
            Tensor out = Unrecorded.copy(x);
            Tensor region = narrowTo(out, index.shape(), a);
            out.backend().binary(io.gradscope.engine.tensor.BinaryKind.ADD, Unrecorded.copy(region), add, region);
            return out;
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            Tensor index = ctx.input(1);
            return new Tensor[] {ctx.needsGrad(0) ? g : null, null, ctx.needsGrad(2) ? Ops.apply(new Gather(axis), g, index) : null};
        }

        @Override
        public String jvpRule() {
            return "ẏ = scatter_add(ẋ, axis, index, ṡrc)";
        }

        @Override
        public Tensor jvp(OpContext ctx, Tensor... t) {
            Tensor tx = t[0] != null ? t[0] : Tensor.zeros(ctx.input(0).dtype(), ctx.input(0).device(), ctx.input(0).shape());
            Tensor ts = t[2] != null ? t[2] : Tensor.zeros(ctx.input(2).dtype(), ctx.input(2).device(), ctx.input(2).shape());
            return Ops.apply(this, tx, ctx.input(1), ts);
        }
    }
}
