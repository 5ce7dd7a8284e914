package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * Resizing the last two axes by a separable linear map, {@code y = A_h · x · A_wᵀ}: adaptive_avg_pool2d
 * (each row of A the mean of its window) and interpolate (nearest, bilinear). Written as two batched
 * matmuls with constant matrices, so CUDA runs them too; linear, so the JVP is the op itself and the
 * VJP is {@code A_hᵀ · g · A_w}.
 *
 * <p>a matmul multiplies every element by its weight, 0 included, so a NaN or ∞ of x shows in
 * every output of its row or column (PyTorch's kernels read only the window).
 */
final class ResizeOps {
    private ResizeOps() {
    }

    /** The shared part: the matrices from the input's size, the shape rule, forward, VJP, rule. */
    abstract static class Separable extends Op {
        final int oh;
        final int ow;

        /** A fixed output size, or (size null) one the subclass computes from the input's ({@link #out}). */
        Separable(int[] size, String op) {
            if (size == null) {
                this.oh = -1;
                this.ow = -1;
                return;
            }
            if (size.length != 1 && size.length != 2) {
                throw new GradscopeException(op + ": the output size must be one integer or two, not " + size.length);
            }
            this.oh = size[0];
            this.ow = size[size.length - 1];
            if (oh < 1 || ow < 1) {
                throw new GradscopeException(op + ": the output size must be positive, not " + Param.valueText(size));
            }
        }

        /** The [out, in] weights of one axis. */
        abstract double[] weights(int out, int in);

        /** The output size of an axis of size {@code in}: the fixed size ({@code rows}: the height's). */
        int out(int in, boolean rows) {
            return rows ? oh : ow;
        }

        Tensor matrix(int out, int in, Tensor like) {
            return Tensor.fromDoubles(like.dtype(), like.device(), weights(out, in), out, in);
        }

        /** Two matrix products per plane: [oh, h] @ [h, w], then [oh, w] @ [w, ow]; a multiply and an add per term. */
        @Override
        public long flops(int[][] inputs, int[] output) {
            int[] x = inputs[0];
            long planes = Shapes.numel(x) / Math.max(1, (long) x[x.length - 2] * x[x.length - 1]);
            long h = x[x.length - 2];
            long w = x[x.length - 1];
            long rows = output[output.length - 2];
            long cols = output[output.length - 1];
            return 2 * planes * (rows * h * w + rows * w * cols);
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity(name(), shapes, 1);
            Checks.floats(name(), dtypes, 0);
            int[] x = shapes[0];
            if (x.length != 3 && x.length != 4) {
                throw new GradscopeException(name() + ": x must be [N, C, H, W] or [C, H, W], not shape " + Shapes.str(x));
            }
            if (x[x.length - 1] == 0 || x[x.length - 2] == 0) {
                throw new GradscopeException(name() + ": cannot resize an empty plane, shape " + Shapes.str(x));
            }
            int[] out = x.clone();
            out[x.length - 2] = out(x[x.length - 2], true);
            out[x.length - 1] = out(x[x.length - 1], false);
            if (out[x.length - 2] < 1 || out[x.length - 1] < 1) {
                throw new GradscopeException(name() + ": the output size must be positive, not " + Shapes.str(out) + " from "
                        + Shapes.str(x));
            }
            return out;
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            outputShape(new int[][] {x.shape()}, new DType[] {x.dtype()});
            int h = x.shape()[x.rank() - 2];
            int w = x.shape()[x.rank() - 1];
            Tensor rows = MatMulOp.batched(matrix(out(h, true), h, x), x);
            return MatMulOp.batched(rows, matrix(out(w, false), w, x).viewTranspose(0, 1));
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            int[] x = ctx.input(0).shape();
            int h = x[x.length - 2];
            int w = x[x.length - 1];
            Tensor ah = matrix(out(h, true), h, g);
            Tensor aw = matrix(out(w, false), w, g);
            return new Tensor[] {Ops.matmul(Ops.matmul(Ops.transpose(ah), g), aw)};
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.none(1);
        }

        /** Output (…, i, j) on input (…, a, b) where A_h[i, a] and A_w[j, b] are not 0. */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int[] x = shapes[0];
            int h = x[x.length - 2];
            int w = x[x.length - 1];
            int oh = out(h, true);
            int ow = out(w, false);
            double[] ah = weights(oh, h);
            double[] aw = weights(ow, w);
            int planes = Dependencies.numel(java.util.Arrays.copyOf(x, x.length - 2));
            Pattern.Builder b = new Pattern.Builder(planes * oh * ow, planes * h * w);
            for (int p = 0; p < planes; p++) {
                for (int i = 0; i < oh; i++) {
                    for (int j = 0; j < ow; j++) {
                        for (int a = 0; a < h; a++) {
                            for (int c = 0; c < w && ah[i * h + a] != 0; c++) {
                                if (aw[j * w + c] != 0) {
                                    b.add((p * h + a) * w + c);
                                }
                            }
                        }
                        b.endRow();
                    }
                }
            }
            return b.build();
        }
    }

    /** F.adaptive_avg_pool2d(x, output_size): window i of n over L is [⌊iL/n⌋, ⌈(i+1)L/n⌉). */
    static final class AdaptiveAvgPool extends Separable {
        AdaptiveAvgPool(int[] size) {
            super(size, "adaptive_avg_pool2d");
        }

        @Override
        public String name() {
            return "adaptive_avg_pool2d";
        }

        @Override
        public String label() {
            return "adaptive_avg_pool2d(" + oh + ", " + ow + ")";
        }

        @Override
        public String rule() {
            return "dx = A_hᵀ · g · A_w, A the window means";
        }

        @Override
        double[] weights(int out, int in) {
            double[] m = new double[out * in];
            for (int i = 0; i < out; i++) {
                int start = (int) Math.floor((double) i * in / out);
                int end = (int) Math.ceil((double) (i + 1) * in / out);
                for (int a = start; a < end; a++) {
                    m[i * in + a] = 1.0 / (end - start);
                }
            }
            return m;
        }
    }

    /** F.interpolate(x, size or scale_factor, mode="nearest", "bilinear" or "bicubic", align_corners). */
    static final class Interpolate extends Separable {
        private final boolean bilinear;
        private final boolean bicubic;
        private final boolean alignCorners;
        private final String label;
        /** scale_factor, or NaN where a size is given. */
        private final double scaleFactor;

        /** Either {@code size} or {@code scaleFactor} (the other null or NaN), as PyTorch asks. */
        Interpolate(int[] size, double scaleFactor, String mode, boolean alignCorners, String label) {
            super(size, "interpolate");
            if ((size == null) == Double.isNaN(scaleFactor)) {
                throw new GradscopeException("interpolate: give either size or scale_factor (as PyTorch), not "
                        + (size == null ? "neither" : "both"));
            }
            if (!Double.isNaN(scaleFactor) && !(scaleFactor > 0)) {
                throw new GradscopeException("interpolate: scale_factor must be positive, not " + scaleFactor);
            }
            this.scaleFactor = scaleFactor;
            this.bilinear = mode.equals("bilinear");
            this.bicubic = mode.equals("bicubic");
            this.alignCorners = alignCorners;
            this.label = label;
            if (!bilinear && !bicubic && alignCorners) {
                throw new GradscopeException("interpolate: align_corners applies to bilinear and bicubic only (as PyTorch)");
            }
        }

        @Override
        public String name() {
            return "interpolate";
        }

        @Override
        public String label() {
            return label;
        }

        @Override
        public String rule() {
            return "dx = A_hᵀ · g · A_w, A the " + (bilinear ? "bilinear" : bicubic ? "bicubic" : "nearest") + " weights";
        }

        /** With scale_factor: ⌊in · scale_factor⌋ (PyTorch's output size). */
        @Override
        int out(int in, boolean rows) {
            return Double.isNaN(scaleFactor) ? super.out(in, rows) : (int) Math.floor(in * scaleFactor);
        }

        // with scale_factor, PyTorch maps output i to input i / scale_factor (not i · in/out, which
        // differs where in · scale_factor is not a whole number); align_corners ignores it.
        @Override
        double[] weights(int out, int in) {
            double[] m = new double[out * in];
            double scale = Double.isNaN(scaleFactor) ? (double) in / out : 1 / scaleFactor;
            for (int i = 0; i < out; i++) {
                if (bicubic) {
                    cubicRow(m, i, in, alignCorners ? (out > 1 ? i * (double) (in - 1) / (out - 1) : 0) : (i + 0.5) * scale - 0.5);
                    continue;
                }
                if (!bilinear) {
                    m[i * in + Math.min((int) Math.floor(i * scale), in - 1)] = 1;
                    continue;
                }
                double src = alignCorners ? (out > 1 ? i * (double) (in - 1) / (out - 1) : 0) : Math.max((i + 0.5) * scale - 0.5, 0);
                int i0 = Math.min((int) Math.floor(src), in - 1);
                int i1 = Math.min(i0 + 1, in - 1);
                double l = src - i0;
                m[i * in + i0] += 1 - l;
                m[i * in + i1] += l;
            }
            return m;
        }

        /**
         * Row i of the bicubic weights, as PyTorch's upsample_bicubic2d: source position {@code src} (not
         * clamped at 0), the four inputs around ⌊src⌋ weighted by the cubic convolution with A = −0.75, an
         * index past either edge read at the edge.
         */
        private static void cubicRow(double[] m, int i, int in, double src) {
            double a = -0.75;
            int x0 = (int) Math.floor(src);
            double t = src - x0;
            double[] w = {
                ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                ((a + 2) * t - (a + 3)) * t * t + 1,
                ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
                ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a};
            for (int k = 0; k < 4; k++) {
                m[i * in + Math.max(0, Math.min(in - 1, x0 - 1 + k))] += w[k];
            }
        }
    }
}
