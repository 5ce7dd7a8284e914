package io.gradscope.engine.ops;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * Ops along one axis with no kernel of their own: cumsum (a scan in log₂ n passes of shifted adds),
 * prod (a tree of products in log₂ n passes) and max/min with an axis (the value, the gradient to
 * one index). All run on the backend's elementwise kernels, so CUDA runs them too.
 */
final class AxisOps {
    private AxisOps() {
    }

    /** torch.cumsum(x, dim=axis); reversed, the sum from each position to the end (its VJP). */
    static final class Cumsum extends Op {
        private final int axis;
        private final boolean reverse;

        Cumsum(int axis, boolean reverse) {
            this.axis = axis;
            this.reverse = reverse;
        }

        @Override
        public String name() {
            return "cumsum";
        }

        @Override
        public String label() {
            return "cumsum(axis=" + axis + (reverse ? ", reversed" : "") + ")";
        }

        @Override
        public String rule() {
            return reverse ? "dx = cumsum(g)" : "dx = cumsum of g from the end";
        }

        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            AxisLines l = AxisLines.of(shapes[0], Shapes.axis("cumsum", axis, Math.max(1, shapes[0].length)));
            return l.pattern(l.n(), j -> reverse ? AxisLines.range(j, l.n()) : AxisLines.range(0, j + 1));
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.none(1);
        }

        /** A log-step scan: an add per element per step, ⌈log₂ n⌉ steps along the axis. */
        @Override
        public long flops(int[][] inputs, int[] output) {
            int[] x = inputs[0];
            int n = x.length == 0 ? 1 : x[Shapes.axis("cumsum", axis, x.length)];
            int steps = Math.max(1, 32 - Integer.numberOfLeadingZeros(Math.max(1, n - 1)));
            return Shapes.numel(x) * steps;
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("cumsum", shapes, 1);
            Checks.floats("cumsum", dtypes, 0);
            Shapes.axis("cumsum", axis, Math.max(1, shapes[0].length));
            return shapes[0].clone();
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            outputShape(new int[][] {x.shape()}, new DType[] {x.dtype()});
            Tensor cur = Unrecorded.copy(x.rank() == 0 ? x.viewReshape(new int[] {1}) : x);
            int d = Shapes.axis("cumsum", axis, cur.rank());
            int n = cur.shape()[d];
            // Hillis–Steele: after the pass of shift s each position holds the sum of the 2s last
            // values up to it; the additions differ in order from a running sum, by rounding only.
            for (int s = 1; s < n; s *= 2) {
                Tensor next = Unrecorded.copy(cur);
                Tensor to = next.viewNarrow(d, reverse ? 0 : s, n - s);
                Tensor here = cur.viewNarrow(d, reverse ? 0 : s, n - s);
                Tensor other = cur.viewNarrow(d, reverse ? s : 0, n - s);
                cur.backend().binary(BinaryKind.ADD, here, other, to);
                cur = next;
            }
            return cur.viewReshape(x.shape());
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.apply(new Cumsum(axis, !reverse), g)};
        }
    }

    /** torch.prod(x) or torch.prod(x, dim=axis, keepdim). */
    static final class Prod extends Op {
        private final Integer axis;
        private final boolean keepdim;

        Prod(Integer axis, boolean keepdim) {
            this.axis = axis;
            this.keepdim = keepdim;
        }

        @Override
        public String name() {
            return "prod";
        }

        @Override
        public String label() {
            return axis == null ? "prod" : "prod(axis=" + axis + (keepdim ? ", keepdim=True" : "") + ")";
        }

        @Override
        public String rule() {
            return "dx = g ⊙ Π of the others (y / x where no x is 0)";
        }

        private int[] axes(int rank) {
            return Shapes.axes("prod", axis == null ? null : new int[] {axis}, rank);
        }

        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            return Dependencies.reduce(shapes[0], axes(shapes[0].length));
        }

        /** At these values, the elements whose others' product is not 0 (none beside a second 0 of the line). */
        @Override
        public Pattern localDependencies(int input, OpContext ctx) {
            int[] shape = ctx.input(0).shape();
            int[] g = Dependencies.groups(shape, axes(shape.length));
            double[] x = ctx.input(0).toDoubleArray();
            int[] zeros = new int[Dependencies.numel(ctx.output().shape())];
            for (int e = 0; e < x.length; e++) {
                zeros[g[e]] += x[e] == 0 ? 1 : 0;
            }
            int[] target = new int[x.length];
            for (int e = 0; e < x.length; e++) {
                target[e] = zeros[g[e]] - (x[e] == 0 ? 1 : 0) > 0 ? -1 : g[e];
            }
            return Pattern.scatter(target, zeros.length);
        }

        /** One multiply per input element. */
        @Override
        public long flops(int[][] inputs, int[] output) {
            return Shapes.numel(inputs[0]);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("prod", shapes, 1);
            Checks.floats("prod", dtypes, 0);
            int[] ax = axes(shapes[0].length);
            return keepdim ? Shapes.keepDims(shapes[0], ax) : Shapes.dropDims(shapes[0], ax);
        }

        /** The product along axis d, kept as size 1, by pairing the halves. */
        static Tensor along(Tensor x, int d) {
            Tensor cur = x;
            int n = cur.shape()[d];
            if (n == 0) {
                int[] one = x.shape();
                one[d] = 1;
                return Tensor.full(x.dtype(), x.device(), 1, one);
            }
            while (n > 1) {
                int m = (n + 1) / 2;
                int[] half = cur.shape();
                half[d] = m;
                Tensor next = Tensor.empty(cur.dtype(), cur.device(), half);
                cur.backend().binary(BinaryKind.MUL, cur.viewNarrow(d, 0, n - m), cur.viewNarrow(d, m, n - m),
                        next.viewNarrow(d, 0, n - m));
                if (m > n - m) {
                    cur.backend().copy(cur.viewNarrow(d, n - m, 1), next.viewNarrow(d, n - m, 1));
                }
                cur = next;
                n = m;
            }
            return cur == x ? Unrecorded.copy(x) : cur;
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            int[] out = outputShape(new int[][] {x.shape()}, new DType[] {x.dtype()});
            if (axis == null || x.rank() == 0) {
                // a 0-d x along its axis 0 (or -1), as PyTorch takes it: the product of its one element
                return along(x.reshapeOrCopy(new int[] {(int) x.numel()}), 0).viewReshape(out);
            }
            return along(x, axes(x.rank())[0]).viewReshape(out);
        }

        /** Π of the other elements of each line, differentiable; y / x where no element is 0 (as PyTorch). */
        private Tensor others(OpContext ctx) {
            Tensor x = ctx.input(0);
            int[] ax = axes(x.rank());
            int[] keep = Shapes.keepDims(x.shape(), ax);
            boolean zero = false;
            for (double v : x.toDoubleArray()) {
                zero |= v == 0;
            }
            if (!zero) {
                // PyTorch's prod_backward takes y / x unless some x is 0, so a NaN or ∞ anywhere spreads to every
                // element's gradient there; the same here.
                return Ops.div(Ops.reshape(ctx.output(), keep), x);
            }
            // with a 0, the product of the others: each line repeated n times with its own element set to 1.
            Tensor flat = axis == null || x.rank() == 0 ? Ops.reshape(x, (int) x.numel()) : Ops.permute(x, toLast(x.rank(), ax[0]));
            int n = flat.shape()[flat.rank() - 1];
            int[] lead = java.util.Arrays.copyOf(flat.shape(), flat.rank() + 1);
            lead[lead.length - 2] = n;
            lead[lead.length - 1] = n;
            int[] row = lead.clone();
            row[row.length - 2] = 1;
            Tensor rows = Ops.broadcastTo(Ops.reshape(flat, row), lead);
            double[] eye = new double[n * n];
            for (int i = 0; i < n; i++) {
                eye[i * n + i] = 1;
            }
            Tensor diag = Tensor.fromDoubles(x.dtype(), x.device(), eye, n, n);
            Tensor prods = Ops.apply(new Prod(-1, false), WhereOp.of(diag, Ops.constant(1, x), rows));
            if (axis == null || x.rank() == 0) {
                return Ops.reshape(prods, x.shape());
            }
            return Ops.permute(prods, back(x.rank(), ax[0]));
        }

        /** The permutation that moves axis d last. */
        static int[] toLast(int rank, int d) {
            int[] p = new int[rank];
            for (int i = 0, k = 0; i < rank; i++) {
                if (i != d) {
                    p[k++] = i;
                }
            }
            p[rank - 1] = d;
            return p;
        }

        /** The inverse of {@link #toLast}. */
        static int[] back(int rank, int d) {
            int[] p = new int[rank];
            for (int i = 0, k = 0; i < rank; i++) {
                p[i] = i == d ? rank - 1 : k++;
            }
            return p;
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            Tensor x = ctx.input(0);
            int[] keep = Shapes.keepDims(x.shape(), axes(x.rank()));
            return new Tensor[] {Ops.mul(Ops.broadcastTo(Ops.reshape(g, keep), x.shape()), others(ctx))};
        }

        @Override
        public String jvpRule() {
            return "ẏ = Σ ẋ ⊙ Π of the others";
        }

        @Override
        public Tensor jvp(OpContext ctx, Tensor... t) {
            Tensor x = ctx.input(0);
            return Ops.reshape(Ops.sum(Ops.mul(t[0], others(ctx)), axes(x.rank()), true), ctx.output().shape());
        }
    }
}
