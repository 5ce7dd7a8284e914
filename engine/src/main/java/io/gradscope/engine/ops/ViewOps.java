package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;

/**
 * Ops that move elements without arithmetic, as views where the strides allow: reshape,
 * permute/transpose, slice and broadcast. Pad and concat, which copy into a new tensor, are
 * {@link PadConcatOps}.
 */
final class ViewOps {
    private ViewOps() {
    }

    /** Reshape with at most one -1; a view when the strides allow, else a copy. */
    static final class Reshape extends Op {
        private final int[] shape;

        Reshape(int[] shape) {
            this.shape = shape.clone();
        }

        @Override
        public String name() {
            return "reshape";
        }

        @Override
        public String label() {
            return "reshape" + Shapes.str(shape);
        }

        @Override
        public String rule() {
            return "dx = reshape(g, shape(x))";
        }

        /** Element e of the output is element e of the input. */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            return Pattern.identity(Dependencies.numel(shapes[0]));
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.none(needsGrad.length);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("reshape", shapes, 1);
            return resolve(shapes[0]);
        }

        int[] resolve(int[] in) {
            long n = Shapes.numel(in);
            int[] out = shape.clone();
            int free = -1;
            long known = 1;
            for (int i = 0; i < out.length; i++) {
                if (out[i] == -1) {
                    if (free >= 0) {
                        throw new GradscopeException("reshape: only one dimension can be -1, in " + Shapes.str(shape));
                    }
                    free = i;
                } else if (out[i] < 0) {
                    throw new GradscopeException("reshape: negative dimension " + out[i] + " in " + Shapes.str(shape));
                } else {
                    known = Shapes.timesSaturating(known, out[i]);
                }
            }
            if (free >= 0) {
                if (known == 0 || n % known != 0) {
                    throw new GradscopeException("reshape: cannot reshape " + Shapes.str(in) + " (" + n + " elements) to "
                            + Shapes.str(shape));
                }
                out[free] = (int) (n / known);
            } else if (known != n) {
                throw new GradscopeException("reshape: cannot reshape " + Shapes.str(in) + " (" + n + " elements) to "
                        + Shapes.str(shape) + " (" + Shapes.numelText(shape) + " elements)");
            }
            return out;
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            return in[0].reshapeOrCopy(resolve(in[0].shape()));
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.reshape(g, ctx.input(0).shape())};
        }
    }

    /** Permute (and transpose, a permute that swaps two axes). */
    static final class Permute extends Op {
        private final int[] perm;
        private final int[] swap;

        Permute(int[] perm, int[] swap) {
            this.perm = perm == null ? null : perm.clone();
            this.swap = swap;
        }

        static Permute swap(int a, int b) {
            return new Permute(null, new int[] {a, b});
        }

        @Override
        public String name() {
            return swap != null ? "transpose" : "permute";
        }

        @Override
        public String label() {
            return swap != null ? "transpose(" + swap[0] + ", " + swap[1] + ")"
                    : "permute" + Arrays.toString(perm).replace('[', '(').replace(']', ')');
        }

        @Override
        public String rule() {
            return swap != null ? "dx = transpose(g)" : "dx = permute(g, p⁻¹)";
        }

        /** A permutation of the elements. */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int[] p = permutation(shapes[0].length);
            int[] in = Shapes.contiguousStrides(shapes[0]);
            int[] out = new int[p.length];
            int[] strides = new int[p.length];
            for (int i = 0; i < p.length; i++) {
                out[i] = shapes[0][p[i]];
                strides[i] = in[p[i]];
            }
            return Pattern.gather(Dependencies.walk(out, strides, 0), Dependencies.numel(shapes[0]));
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.none(needsGrad.length);
        }

        int[] permutation(int rank) {
            if (swap != null) {
                int a = Shapes.axis("transpose", swap[0], rank);
                int b = Shapes.axis("transpose", swap[1], rank);
                int[] p = new int[rank];
                for (int i = 0; i < rank; i++) {
                    p[i] = i;
                }
                if (rank > 0) {
                    p[a] = b;
                    p[b] = a;
                }
                return p;
            }
            if (perm.length != rank) {
                throw new GradscopeException("permute: needs " + rank + " axes for a tensor of rank " + rank + ", got "
                        + perm.length);
            }
            int[] p = new int[rank];
            boolean[] seen = new boolean[rank];
            for (int i = 0; i < rank; i++) {
                p[i] = Shapes.axis("permute", perm[i], rank);
                if (seen[p[i]]) {
                    throw new GradscopeException("permute: axis " + perm[i] + " appears more than once in "
                            + Arrays.toString(perm));
                }
                seen[p[i]] = true;
            }
            return p;
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity(name(), shapes, 1);
            int[] p = permutation(shapes[0].length);
            int[] out = new int[p.length];
            for (int i = 0; i < p.length; i++) {
                out[i] = shapes[0][p[i]];
            }
            return out;
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            return in[0].viewPermute(permutation(in[0].rank()));
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            int[] p = permutation(g.rank());
            int[] inv = new int[p.length];
            for (int i = 0; i < p.length; i++) {
                inv[p[i]] = i;
            }
            return new Tensor[] {swap != null ? Ops.apply(this, g) : Ops.permute(g, inv)};
        }
    }

    /**
     * {@code x.narrow(axis, start, stop - start)}, or with {@code step > 1} every step-th element of
     * that range ({@code x[..., start:stop:step]}): a view either way, its stride along the axis
     * multiplied by the step.
     */
    static final class Slice extends Op {
        private final int axis;
        private final int start;
        private final int stop;
        private final int step;

        Slice(int axis, int start, int stop, int step) {
            this.axis = axis;
            this.start = start;
            this.stop = stop;
            this.step = step;
        }

        /** The number of elements the slice keeps. */
        private int length() {
            return (stop - start + step - 1) / step;
        }

        @Override
        public String name() {
            return "slice";
        }

        @Override
        public String label() {
            return "slice(axis=" + axis + ", " + start + ":" + stop + (step == 1 ? "" : ":" + step) + ")";
        }

        @Override
        public String rule() {
            return step == 1 ? "dx = pad(g) with zeros outside the slice" : "dx = g spread every step-th element, zeros between";
        }

        /** A selection: each output element is one input element. */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int[] x = shapes[0];
            int a = Shapes.axis("slice", axis, x.length);
            int[] strides = Shapes.contiguousStrides(x);
            int offset = start * strides[a];
            strides[a] *= step;
            int[] out = x.clone();
            out[a] = length();
            return Pattern.gather(Dependencies.walk(out, strides, offset), Dependencies.numel(x));
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.none(needsGrad.length);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("slice", shapes, 1);
            if (shapes[0].length == 0) {
                throw new GradscopeException("slice: cannot slice a 0-d tensor");
            }
            int a = Shapes.axis("slice", axis, shapes[0].length);
            int d = shapes[0][a];
            if (start < 0 || stop < start || stop > d) {
                throw new GradscopeException("slice: range " + start + ":" + stop + " does not fit axis " + axis
                        + " of size " + d + " (need 0 <= start <= stop <= " + d + ")");
            }
            if (step < 1) {
                throw new GradscopeException("slice: step must be at least 1, got " + step);
            }
            int[] out = shapes[0].clone();
            out[a] = length();
            return out;
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            int a = Shapes.axis("slice", axis, x.rank());
            if (step == 1) {
                return x.viewNarrow(a, start, stop - start);
            }
            int[] shape = x.shape();
            int[] strides = x.strides();
            int offset = x.offset() + (length() == 0 ? 0 : start * strides[a]);
            shape[a] = length();
            strides[a] *= step;
            return x.asStrided(shape, strides, offset);
        }

        /**
         * With a step: g gains an axis of length step after the sliced one (g in its first place, zeros
         * after), the two merge, and the result is padded (or cut) to x's extent: differentiable ops
         * only, so higher derivatives follow.
         */
        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            Tensor x = ctx.input(0);
            int a = Shapes.axis("slice", axis, x.rank());
            int d = x.shape()[a];
            if (step == 1) {
                return new Tensor[] {Ops.pad(g, a, start, d - stop)};
            }
            int n = length();
            int[] wide = new int[g.rank() + 1];
            for (int i = 0, j = 0; i < wide.length; i++) {
                wide[i] = i == a + 1 ? 1 : g.shape()[j++];
            }
            Tensor spread = Ops.pad(Ops.reshape(g, wide), a + 1, 0, step - 1);
            int[] merged = g.shape();
            merged[a] = n * step;
            Tensor dx = Ops.reshape(spread, merged);
            int end = start + n * step;
            dx = end > d ? Ops.slice(dx, a, 0, d - start) : dx;
            return new Tensor[] {Ops.pad(dx, a, start, Math.max(0, d - end))};
        }
    }

    /** Broadcast to a shape (a view with zero strides). */
    static final class BroadcastTo extends Op {
        private final int[] shape;

        BroadcastTo(int[] shape) {
            this.shape = shape.clone();
        }

        @Override
        public String name() {
            return "broadcast_to";
        }

        @Override
        public String label() {
            return "broadcast_to" + Shapes.str(shape);
        }

        @Override
        public String rule() {
            return "dx = sum of g over the broadcast axes";
        }

        /** Each output element is the input element broadcast onto it. */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            return Dependencies.broadcast(shape, shapes[0]);
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.none(needsGrad.length);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("broadcast_to", shapes, 1);
            Shapes.checkValid("broadcast_to", shape);
            if (!Shapes.broadcastsTo(shapes[0], shape)) {
                throw new GradscopeException("broadcast_to: cannot broadcast " + Shapes.str(shapes[0]) + " to "
                        + Shapes.str(shape));
            }
            return shape.clone();
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            return in[0].viewExpand(shape);
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.sumTo(g, ctx.input(0))};
        }
    }
}
