package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * F.max_pool1d/2d and F.avg_pool1d/2d, written from existing primitives: the windows are unfolded
 * into {@code [N, C, K, L]} (K kernel elements, L output positions) and reduced over K; the VJP spreads
 * the gradient over each window and folds it back (col2im), so it can be differentiated again.
 */
final class PoolOps {
    private PoolOps() {
    }

    /** The shape checks and geometry both pools share. */
    abstract static class Pool extends Op {
        final int spatial;
        final SlidingWindow w;

        Pool(int spatial, SlidingWindow w) {
            this.spatial = spatial;
            this.w = w;
        }

        /** One comparison (max) or add (avg) per window element per output element. */
        @Override
        public long flops(int[][] inputs, int[] output) {
            return Shapes.numel(output) * w.kh * w.kw;
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity(name(), shapes, 1);
            Checks.floats(name(), dtypes, 0);
            int[] x = shapes[0];
            if (x.length != spatial + 2) {
                throw new GradscopeException(name() + ": x must be " + (spatial == 1 ? "[N, C, L] or [C, L]" : "[N, C, H, W] or [C, H, W]") + ", not shape "
                        + Shapes.str(x));
            }
            w.checkPoolPadding(name());
            int[] x4 = as4d(x);
            int oh = w.outH(name(), x4[2], x);
            int ow = w.outW(name(), x4[3], x);
            return spatial == 1 ? new int[] {x[0], x[1], ow} : new int[] {x[0], x[1], oh, ow};
        }

        /**
         * Each output element on the elements of its window inside x (no window lies in the padding
         * only), or only those where {@code keep} ({@code [N, C, K, L]}, as {@link #windows}) is not zero.
         */
        Pattern windowElements(int[] x, double[] keep) {
            int[] x4 = as4d(x);
            return w.pooled(x4[0] * x4[1], x4[2], x4[3], keep);
        }

        int[] as4d(int[] s) {
            return spatial == 1 ? new int[] {s[0], s[1], 1, s[2]} : s;
        }

        /** The global rule from the windows, a row at a time: output (b, o) on plane b's window at o inside x. */
        @Override
        public io.gradscope.engine.sparse.Rows dependencyRows(int input, int[][] shapes) {
            int[] x4 = as4d(shapes[0]);
            int hw = x4[2] * x4[3];
            int planes = x4[0] * x4[1];
            WindowRows.Planes own = new WindowRows.Planes() {
                @Override
                public int count() {
                    return 1;
                }

                @Override
                public int base(int b, int c) {
                    return b * hw;
                }
            };
            return new WindowRows(planes, Math.multiplyExact(planes, hw), w.sources(x4[2], x4[3]), w.size(), own, false);
        }

        /** The windows of x as {@code [N, C, K, L]}. */
        Tensor windows(Tensor x, double padValue) {
            return windows(x, padValue, padValue);
        }

        /** The same, ceil_mode's overhang past the padding reading {@code endValue}. */
        Tensor windows(Tensor x, double padValue, double endValue) {
            Tensor x4 = spatial == 1 ? SlidingWindow.insertAxis(x, 2) : x;
            Tensor cols = w.unfold(x4, padValue, endValue);
            int[] cs = cols.shape();
            return cols.viewReshape(new int[] {cs[0], cs[1], w.size(), cs[4] * cs[5]});
        }

        /** The VJP from the gradient of every window element, {@code [N, C, K, L]}: fold it back onto x. */
        Tensor foldBack(Tensor gcols, Tensor x) {
            int[] x4 = as4d(x.shape());
            int[] gs = gcols.shape();
            Tensor dx = Ops.apply(new FoldOps.Fold(w, x4[2], x4[3]), Ops.reshape(gcols, gs[0], gs[1] * gs[2], gs[3]));
            return spatial == 1 ? Ops.reshape(dx, x.shape()) : dx;
        }

        /** g as {@code [N, C, 1, L]}. */
        static Tensor perWindow(Tensor g) {
            int[] gs = g.shape();
            int l = gs[gs.length - 1] * (gs.length == 4 ? gs[2] : 1);
            return Ops.reshape(g, gs[0], gs[1], 1, l);
        }
    }

    /** The largest element of each window; padding counts as −∞. */
    static final class MaxPool extends Pool {
        MaxPool(int spatial, SlidingWindow w) {
            super(spatial, w);
        }

        @Override
        public String name() {
            return "max_pool" + spatial + "d";
        }

        @Override
        public String label() {
            return name() + "(" + w.text(spatial, true) + ")";
        }

        @Override
        public String rule() {
            return "dx = fold(g at the first maximum of each window, or its last NaN)";
        }

        /** Global: the window's elements inside x (each is the first maximum for some x). */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            return windowElements(shapes[0], null);
        }

        /**
         * At these values, the first maximum of each window (the index the forward saved), or its last
         * NaN; none where the window has no position inside x.
         */
        @Override
        public Pattern localDependencies(int input, OpContext ctx) {
            return windowElements(ctx.input(0).shape(), mask(ctx.saved(0)).toDoubleArray());
        }

        /** {@code index [N, C, 1, L]} (kernel offsets, −1 for none) as the 0/1 mask {@code [N, C, K, L]} of the positions it names. */
        private Tensor mask(Tensor index) {
            int k = w.size();
            double[] at = new double[k];
            for (int i = 0; i < k; i++) {
                at[i] = i;
            }
            return Unrecorded.binary(BinaryKind.EQ, index, Tensor.fromDoubles(index.dtype(), index.device(), at, 1, 1, k, 1));
        }

        /**
         * Saves {@code index [N, C, 1, L]}: the kernel offset of each window's first maximum (or last NaN),
         * K times smaller than the 0/1 mask over every window element it stands for ({@link #mask}).
         */
        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            int[] out = outputShape(new int[][] {in[0].shape()}, new DType[] {in[0].dtype()});
            Tensor x4 = spatial == 1 ? SlidingWindow.insertAxis(in[0], 2) : in[0];
            // The backend's kernel straight from x where it has one (no unfolded windows): the same maximum and index.
            Tensor[] direct = x4.numel() > 0 ? x4.backend().maxPool(x4, w.geometry(), spatial == 1 ? 1 : out[2], out[out.length - 1])
                    : null;
            if (direct != null) {
                ctx.save(direct[1]);
                return direct[0].viewReshape(out);
            }
            Tensor cols = windows(in[0], Double.NEGATIVE_INFINITY);
            int k = w.size();
            int[] ax = {2};
            Tensor max = Unrecorded.reduce(ReduceKind.MAX, cols, ax, true);
            // the gradient goes to the first maximum of a window (PyTorch's index), not split among ties:
            // ties are common after a ReLU. Scoring each tie by K − position picks the first. A window holding a
            // NaN has a NaN maximum, and the gradient goes to its last NaN (PyTorch's `val > max || isnan(val)`):
            // a NaN scores K + 1 + position, above every tie.
            double[] order = new double[k];
            double[] nanOrder = new double[k];
            double[] position = new double[k];
            for (int i = 0; i < k; i++) {
                order[i] = k - i;
                nanOrder[i] = k + 1 + i;
                position[i] = i + 1;
            }
            Tensor rank = Tensor.fromDoubles(cols.dtype(), cols.device(), order, 1, 1, k, 1);
            Tensor nanRank = Tensor.fromDoubles(cols.dtype(), cols.device(), nanOrder, 1, 1, k, 1);
            Tensor score = Unrecorded.binary(BinaryKind.ADD, Unrecorded.binary(BinaryKind.MUL, Unrecorded.binary(BinaryKind.EQ, cols, max), rank),
                    Unrecorded.binary(BinaryKind.MUL, Unrecorded.isNan(cols), nanRank));
            Tensor best = Unrecorded.reduce(ReduceKind.MAX, score, ax, true);
            Tensor first = Unrecorded.binary(BinaryKind.MUL, Unrecorded.binary(BinaryKind.EQ, score, best),
                    Unrecorded.binary(BinaryKind.GT, best, Unrecorded.scalarLike(best, 0)));
            // Σ first·(offset + 1) − 1: the marked offset, or −1 where a window has no mark
            Tensor after = Tensor.fromDoubles(cols.dtype(), cols.device(), position, 1, 1, k, 1);
            ctx.save(Unrecorded.binary(BinaryKind.SUB, Unrecorded.reduce(ReduceKind.SUM, Unrecorded.binary(BinaryKind.MUL, first, after), ax, true),
                    Unrecorded.scalarLike(first, 1)));
            return max.viewReshape(out);
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            Tensor x = ctx.input(0);
            Tensor index = ctx.saved(0);
            if (!Ops.differentiating() && g.numel() > 0) {
                int[] x4 = as4d(x.shape());
                int[] g4 = as4d(g.shape());
                Tensor dx = g.backend().maxPoolBackward(g.contiguous(), index, w.geometry(), g4[2], g4[3], x4[2], x4[3]);
                if (dx != null) {
                    return new Tensor[] {spatial == 1 ? dx.viewReshape(x.shape()) : dx};
                }
            }
            return new Tensor[] {foldBack(Ops.mul(perWindow(g), mask(index)), x)};
        }

        @Override
        public String jvpRule() {
            return "ẏ = ẋ at the first maximum of each window";
        }

        @Override
        public Tensor jvp(OpContext ctx, Tensor... t) {
            int[] out = ctx.output().shape();
            return Unrecorded.reduce(ReduceKind.SUM, Unrecorded.binary(BinaryKind.MUL, windows(t[0], 0), mask(ctx.saved(0))), new int[] {2}, true)
                    .viewReshape(out);
        }
    }

    /** The mean of each window, with or without the zero padding counted. */
    static final class AvgPool extends Pool {
        private final boolean countIncludePad;

        AvgPool(int spatial, SlidingWindow w, boolean countIncludePad) {
            super(spatial, w);
            this.countIncludePad = countIncludePad;
        }

        @Override
        public String name() {
            return "avg_pool" + spatial + "d";
        }

        @Override
        public String label() {
            return name() + "(" + w.text(spatial, false) + (countIncludePad ? "" : ", count_include_pad=False") + ")";
        }

        @Override
        public String rule() {
            return "dx = fold(g / n spread over each window)";
        }

        /** The window's elements inside x, with or without the padding counted (linear: local is global). */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            return windowElements(shapes[0], null);
        }

        @Override
        public io.gradscope.engine.sparse.Rows localDependencyRows(int input, OpContext ctx) {
            return dependencyRows(input, Dependencies.shapes(ctx));
        }

        /**
         * The divisor of each window ({@code [1, 1, 1, L]}): its elements inside x, with the padding
         * counted when count_include_pad; never ceil_mode's overhang past the padding (PyTorch's
         * {@code min(start + k, n + pad)}). K itself where no window has padding or overhang to leave out.
         */
        private Tensor divisor(Tensor x) {
            int[] s = x.shape();
            int[] x4 = as4d(s);
            boolean overhang = w.ceilMode && (w.overhangH(x4[2], w.outH(name(), x4[2], s)) > 0
                    || w.overhangW(x4[3], w.outW(name(), x4[3], s)) > 0);
            if (!overhang && (countIncludePad || (w.ph == 0 && w.pw == 0))) {
                return Unrecorded.scalarLike(x, w.size());
            }
            s[0] = 1;
            s[1] = 1;
            Tensor ones = Tensor.full(x.dtype(), x.device(), 1, s);
            return Unrecorded.reduce(ReduceKind.SUM, windows(ones, countIncludePad ? 1 : 0, 0), new int[] {2}, true);
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            int[] out = outputShape(new int[][] {in[0].shape()}, new DType[] {in[0].dtype()});
            Tensor sum = Unrecorded.reduce(ReduceKind.SUM, windows(in[0], 0), new int[] {2}, true);
            return Unrecorded.binary(BinaryKind.DIV, sum, divisor(in[0])).viewReshape(out);
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            Tensor x = ctx.input(0);
            Tensor gw = Ops.div(perWindow(g), divisor(x));
            int[] gs = gw.shape();
            return new Tensor[] {foldBack(Ops.broadcastTo(gw, gs[0], gs[1], w.size(), gs[3]), x)};
        }
    }
}
