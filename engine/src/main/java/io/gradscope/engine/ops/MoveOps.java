package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;

/**
 * Ops that only move elements: flip, roll, repeat and stack. Each forward is a few strided copies
 * (the backend's copy, so CUDA runs them too); each is linear, so its JVP is itself on the tangent,
 * and its VJP is its own inverse movement. The dependency rule is read off the forward run on
 * 1, 2, 3, ... ({@link Dependencies#moved}).
 */
final class MoveOps {
    private MoveOps() {
    }

    /** Base: one float input (stack overrides), the rule from the movement itself. */
    abstract static class Move extends Op {
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            DType[] dt = new DType[shapes.length];
            Arrays.fill(dt, DType.FLOAT64);
            return Dependencies.moved(this, input, shapes, dt);
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.none(needsGrad.length);
        }

        static Tensor copy(Tensor from, Tensor to) {
            from.backend().copy(from, to);
            return to;
        }
    }

    /** torch.flip(x, dims). */
    static final class Flip extends Move {
        private final int[] dims;

        Flip(int[] dims) {
            this.dims = dims.clone();
        }

        @Override
        public String name() {
            return "flip";
        }

        @Override
        public String label() {
            return "flip(" + Param.valueText(dims) + ")";
        }

        @Override
        public String rule() {
            return "dx = flip(g)";
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("flip", shapes, 1);
            Checks.floats("flip", dtypes, 0);
            Shapes.axes("flip", dims, shapes[0].length);
            return shapes[0].clone();
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor cur = in[0];
            for (int d : Shapes.axes("flip", dims, cur.rank())) {
                int n = cur.shape()[d];
                Tensor out = Tensor.empty(cur.dtype(), cur.device(), cur.shape());
                for (int i = 0; i < n; i++) {
                    copy(cur.viewNarrow(d, i, 1), out.viewNarrow(d, n - 1 - i, 1));
                }
                cur = out;
            }
            return cur == in[0] ? Unrecorded.copy(cur) : cur;
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.apply(this, g)};
        }
    }

    /** torch.roll(x, shifts, dims); dims None rolls the flattened tensor. */
    static final class Roll extends Move {
        private final int[] shifts;
        private final int[] dims;

        Roll(int[] shifts, int[] dims) {
            if (dims != null && dims.length != shifts.length) {
                throw new GradscopeException("roll: shifts and dims must have the same length, not " + shifts.length + " and "
                        + dims.length);
            }
            if (dims == null && shifts.length != 1) {
                throw new GradscopeException("roll: without dims, shifts must be one integer (the flattened tensor rolls)");
            }
            this.shifts = shifts.clone();
            this.dims = dims == null ? null : dims.clone();
        }

        @Override
        public String name() {
            return "roll";
        }

        @Override
        public String label() {
            return "roll(" + Param.valueText(shifts) + (dims == null ? "" : ", dims=" + Param.valueText(dims)) + ")";
        }

        @Override
        public String rule() {
            return "dx = roll(g, −shifts)";
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("roll", shapes, 1);
            Checks.floats("roll", dtypes, 0);
            if (dims != null) {
                for (int d : dims) {
                    Shapes.axis("roll", d, shapes[0].length);
                }
            }
            return shapes[0].clone();
        }

        private static Tensor rollAxis(Tensor x, int d, int shift) {
            int n = x.shape()[d];
            Tensor out = Tensor.empty(x.dtype(), x.device(), x.shape());
            int s = n == 0 ? 0 : Math.floorMod(shift, n);
            if (s == 0) {
                return copy(x, out);
            }
            copy(x.viewNarrow(d, 0, n - s), out.viewNarrow(d, s, n - s));
            copy(x.viewNarrow(d, n - s, s), out.viewNarrow(d, 0, s));
            return out;
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            if (dims == null) {
                int[] flat = {(int) x.numel()};
                return rollAxis(x.reshapeOrCopy(flat), 0, shifts[0]).viewReshape(x.shape());
            }
            for (int i = 0; i < dims.length; i++) {
                x = rollAxis(x, Shapes.axis("roll", dims[i], x.rank()), shifts[i]);
            }
            return x == in[0] ? Unrecorded.copy(x) : x;
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            int[] back = new int[shifts.length];
            for (int i = 0; i < back.length; i++) {
                back[i] = -shifts[i];
            }
            return new Tensor[] {Ops.apply(new Roll(back, dims), g)};
        }
    }

    /** x.repeat(*sizes): tiles x, leading axes added where sizes has more than x. */
    static final class Repeat extends Move {
        private final int[] sizes;

        Repeat(int[] sizes) {
            this.sizes = sizes.clone();
        }

        @Override
        public String name() {
            return "repeat";
        }

        @Override
        public String label() {
            return "repeat(" + Param.valueText(sizes) + ")";
        }

        @Override
        public String rule() {
            return "dx = g summed over the tiles";
        }

        /** x's shape with leading 1s to the length of sizes. */
        private int[] padded(int[] x) {
            if (sizes.length < x.length) {
                throw new GradscopeException("repeat: needs at least as many sizes as x has axes (" + x.length + "), not "
                        + sizes.length);
            }
            int[] p = new int[sizes.length];
            Arrays.fill(p, 1);
            System.arraycopy(x, 0, p, sizes.length - x.length, x.length);
            return p;
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("repeat", shapes, 1);
            Checks.floats("repeat", dtypes, 0);
            int[] p = padded(shapes[0]);
            int[] out = new int[p.length];
            for (int i = 0; i < p.length; i++) {
                if (sizes[i] < 0) {
                    throw new GradscopeException("repeat: sizes must not be negative, not " + Param.valueText(sizes));
                }
                out[i] = Math.multiplyExact(p[i], sizes[i]);
            }
            return out;
        }

        /** [r0, s0, r1, s1, ...] and the same with 1 for each r. */
        private int[][] interleaved(int[] x) {
            int[] p = padded(x);
            int[] wide = new int[2 * p.length];
            int[] one = new int[2 * p.length];
            for (int i = 0; i < p.length; i++) {
                wide[2 * i] = sizes[i];
                wide[2 * i + 1] = p[i];
                one[2 * i] = 1;
                one[2 * i + 1] = p[i];
            }
            return new int[][] {wide, one};
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            int[][] w = interleaved(in[0].shape());
            Tensor spread = in[0].reshapeOrCopy(w[1]).viewExpand(w[0]);
            return Unrecorded.copy(spread).viewReshape(outputShape(new int[][] {in[0].shape()}, new DType[] {in[0].dtype()}));
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            int[] x = ctx.input(0).shape();
            int[][] w = interleaved(x);
            int[] tiles = new int[sizes.length];
            for (int i = 0; i < tiles.length; i++) {
                tiles[i] = 2 * i;
            }
            return new Tensor[] {Ops.reshape(Ops.sum(Ops.reshape(g, w[0]), tiles, false), x)};
        }
    }

    /** torch.stack(tensors, dim=axis). */
    static final class Stack extends Move {
        private final int axis;

        Stack(int axis) {
            this.axis = axis;
        }

        @Override
        public String name() {
            return "stack";
        }

        @Override
        public String label() {
            return "stack(axis=" + axis + ")";
        }

        @Override
        public String rule() {
            return "dxᵢ = g[..., i, ...] along the new axis";
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            if (shapes.length == 0) {
                throw new GradscopeException("stack: needs at least one tensor");
            }
            int[] all = new int[shapes.length];
            for (int i = 0; i < all.length; i++) {
                all[i] = i;
                if (!Arrays.equals(shapes[i], shapes[0])) {
                    throw new GradscopeException("stack: every tensor must have one shape, not " + Shapes.str(shapes[0]) + " and "
                            + Shapes.str(shapes[i]));
                }
            }
            Checks.floats("stack", dtypes, all);
            int a = Shapes.axis("stack", axis, shapes[0].length + 1);
            int[] out = new int[shapes[0].length + 1];
            for (int d = 0, s = 0; d < out.length; d++) {
                out[d] = d == a ? shapes.length : shapes[0][s++];
            }
            return out;
        }

        private int at(int rank) {
            return Shapes.axis("stack", axis, rank + 1);
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            int[][] shapes = new int[in.length][];
            DType[] dt = new DType[in.length];
            for (int i = 0; i < in.length; i++) {
                shapes[i] = in[i].shape();
                dt[i] = in[i].dtype();
            }
            int[] shape = outputShape(shapes, dt);
            int a = at(in[0].rank());
            Tensor out = Tensor.empty(in[0].dtype(), in[0].device(), shape);
            int[] one = shape.clone();
            one[a] = 1;
            for (int i = 0; i < in.length; i++) {
                copy(in[i].reshapeOrCopy(one), out.viewNarrow(a, i, 1));
            }
            return out;
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            int a = at(ctx.input(0).rank());
            Tensor[] d = new Tensor[ctx.inputs().size()];
            for (int i = 0; i < d.length; i++) {
                d[i] = ctx.needsGrad(i) ? Ops.reshape(Ops.slice(g, a, i, i + 1), ctx.input(i).shape()) : null;
            }
            return d;
        }
    }
}
