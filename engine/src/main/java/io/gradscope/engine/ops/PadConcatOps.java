package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * Ops that copy their inputs into a new, larger tensor without arithmetic: pad (zeros around the
 * input along one axis) and concat (the inputs side by side along one axis). Linear; each VJP
 * slices the gradient back.
 */
final class PadConcatOps {
    private PadConcatOps() {
    }

    /** Zeros before and after along one axis: slice's VJP, and itself differentiable (its VJP is a slice). */
    static final class Pad extends Op {
        private final int axis;
        private final int before;
        private final int after;

        Pad(int axis, int before, int after) {
            this.axis = axis;
            this.before = before;
            this.after = after;
        }

        @Override
        public String name() {
            return "pad";
        }

        @Override
        public String label() {
            return "pad(axis=" + axis + ", " + before + ", " + after + ")";
        }

        @Override
        public String rule() {
            return "dx = slice(g)";
        }

        /** Each input element lands on one output element; the padding depends on nothing. */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int[] x = shapes[0];
            int a = Shapes.axis("pad", axis, x.length);
            int[] out = x.clone();
            out[a] += before + after;
            int[] strides = Shapes.contiguousStrides(out);
            return Pattern.scatter(Dependencies.walk(x, strides, before * strides[a]), Dependencies.numel(out));
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.none(needsGrad.length);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("pad", shapes, 1);
            if (before < 0 || after < 0) {
                throw new GradscopeException("pad: padding must be non-negative, got " + before + " and " + after);
            }
            int[] out = shapes[0].clone();
            int a = Shapes.axis("pad", axis, out.length);
            out[a] += before + after;
            return out;
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            int a = Shapes.axis("pad", axis, x.rank());
            Tensor out = Tensor.zeros(x.dtype(), x.device(), outputShape(new int[][] {x.shape()}, null));
            x.backend().copy(x, out.viewNarrow(a, before, x.shape()[a]));
            return out;
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            int a = Shapes.axis("pad", axis, g.rank());
            return new Tensor[] {Ops.slice(g, a, before, before + ctx.input(0).shape()[a])};
        }
    }

    /** torch.cat along one axis. */
    static final class Concat extends Op {
        private final int axis;

        Concat(int axis) {
            this.axis = axis;
        }

        @Override
        public String name() {
            return "concat";
        }

        @Override
        public String label() {
            return "concat(axis=" + axis + ")";
        }

        @Override
        public String rule() {
            return "dxᵢ = slice of g along the axis";
        }

        /** Each element of input i lands on one output element, in its stretch of the axis. */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int a = Shapes.axis("concat", axis, shapes[0].length);
            int[] out = shapes[0].clone();
            int at = 0;
            for (int i = 1; i < shapes.length; i++) {
                out[a] += shapes[i][a];
            }
            for (int i = 0; i < input; i++) {
                at += shapes[i][a];
            }
            int[] strides = Shapes.contiguousStrides(out);
            return Pattern.scatter(Dependencies.walk(shapes[input], strides, at * strides[a]), Dependencies.numel(out));
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.none(needsGrad.length);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            if (shapes.length == 0) {
                throw new GradscopeException("concat: needs at least one tensor");
            }
            int[] all = new int[shapes.length];
            for (int i = 0; i < all.length; i++) {
                all[i] = i;
            }
            Checks.floats("concat", dtypes, all);
            int[] first = shapes[0];
            if (first.length == 0) {
                throw new GradscopeException("concat: cannot concatenate 0-d tensors");
            }
            int a = Shapes.axis("concat", axis, first.length);
            int[] out = first.clone();
            for (int i = 1; i < shapes.length; i++) {
                int[] s = shapes[i];
                boolean ok = s.length == first.length;
                for (int d = 0; ok && d < s.length; d++) {
                    ok = d == a || s[d] == first[d];
                }
                if (!ok) {
                    throw new GradscopeException("concat: shapes " + Shapes.str(first) + " and " + Shapes.str(s)
                            + " differ outside axis " + axis);
                }
                out[a] += s[a];
            }
            return out;
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            int[][] shapes = new int[in.length][];
            DType[] dt = new DType[in.length];
            for (int i = 0; i < in.length; i++) {
                shapes[i] = in[i].shape();
                dt[i] = in[i].dtype();
            }
            int a = Shapes.axis("concat", axis, in[0].rank());
            Tensor out = Tensor.zeros(in[0].dtype(), in[0].device(), outputShape(shapes, dt));
            int at = 0;
            for (Tensor x : in) {
                int len = x.shape()[a];
                x.backend().copy(x, out.viewNarrow(a, at, len));
                at += len;
            }
            return out;
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            int a = Shapes.axis("concat", axis, g.rank());
            Tensor[] d = new Tensor[ctx.inputs().size()];
            int at = 0;
            for (int i = 0; i < d.length; i++) {
                int len = ctx.input(i).shape()[a];
                d[i] = ctx.needsGrad(i) ? Ops.slice(g, a, at, at + len) : null;
                at += len;
            }
            return d;
        }
    }
}
