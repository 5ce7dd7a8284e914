package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * F.unfold (im2col) and F.fold (col2im) over {@code [N, C, H, W]}: linear, each the other's VJP (as
 * slice and pad), so the convolution and pooling VJPs written with them can be differentiated again.
 * Column {@code c·kh·kw + i·kw + j} holds channel c at kernel offset (i, j), as PyTorch lays it out.
 */
final class FoldOps {
    private FoldOps() {
    }

    /** {@code [N, C, H, W] -> [N, C·kh·kw, OH·OW]}. */
    static final class Unfold extends Op {
        private final SlidingWindow w;

        Unfold(SlidingWindow w) {
            this.w = w;
        }

        @Override
        public String name() {
            return "unfold";
        }

        @Override
        public String label() {
            return "unfold(" + w.text(2, true) + ")";
        }

        @Override
        public String rule() {
            return "dx = fold(g)";
        }

        /** A gather: each column element is the element of x its window reads, or nothing in the padding. */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int[] x = shapes[0];
            return Pattern.gather(w.sources(x[0] * x[1], x[2], x[3]), Dependencies.numel(x));
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("unfold", shapes, 1);
            Checks.floats("unfold", dtypes, 0);
            int[] x = shapes[0];
            if (x.length != 4) {
                throw new GradscopeException("unfold: needs an input [N, C, H, W], not shape " + Shapes.str(x));
            }
            long cols = (long) x[1] * w.size();
            long l = (long) w.outH("unfold", x[2], x) * w.outW("unfold", x[3], x);
            if (cols > Integer.MAX_VALUE || l > Integer.MAX_VALUE) {
                throw new GradscopeException("unfold: the result of " + Shapes.str(x) + " is too large");
            }
            return new int[] {x[0], (int) cols, (int) l};
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            int[] out = outputShape(new int[][] {in[0].shape()}, new DType[] {in[0].dtype()});
            return w.unfold(in[0], 0).viewReshape(out);
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            int[] x = ctx.input(0).shape();
            return new Tensor[] {Ops.apply(new Fold(w, x[2], x[3]), g)};
        }
    }

    /** {@code [N, C·kh·kw, L] -> [N, C, H, W]}, overlapping windows summed. */
    static final class Fold extends Op {
        private final SlidingWindow w;
        private final int h;
        private final int wd;

        Fold(SlidingWindow w, int h, int width) {
            this.w = w;
            this.h = h;
            this.wd = width;
        }

        @Override
        public String name() {
            return "fold";
        }

        @Override
        public String label() {
            return "fold(output_size=(" + h + ", " + wd + "), " + w.text(2, true) + ")";
        }

        @Override
        public String rule() {
            return "dx = unfold(g)";
        }

        /** The adjoint of unfold's gather: each output element sums the column elements that read it. */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int[] x = shapes[0];
            int planes = x[0] * (x[1] / w.size());
            return Pattern.scatter(w.sources(planes, h, wd), planes * h * wd);
        }

        /** One add per input element: overlapping windows are summed. */
        @Override
        public long flops(int[][] inputs, int[] output) {
            return Shapes.numel(inputs[0]);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity("fold", shapes, 1);
            Checks.floats("fold", dtypes, 0);
            int[] x = shapes[0];
            int[] target = {1, 1, h, wd};
            int l = w.outH("fold", h, target) * w.outW("fold", wd, target);
            if (x.length != 3 || x[1] % w.size() != 0 || x[2] != l) {
                throw new GradscopeException("fold: needs an input [N, C·" + w.size() + ", " + l + "] for output_size (" + h + ", " + wd
                        + ") and this window, not shape " + Shapes.str(x));
            }
            return new int[] {x[0], x[1] / w.size(), h, wd};
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            int[] out = outputShape(new int[][] {in[0].shape()}, new DType[] {in[0].dtype()});
            int oh = w.outH("fold", h, out);
            int ow = w.outW("fold", wd, out);
            Tensor cols = in[0].reshapeOrCopy(new int[] {out[0], out[1], w.kh, w.kw, oh, ow});
            return w.fold(cols, h, wd);
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.apply(new Unfold(w), g)};
        }
    }
}
