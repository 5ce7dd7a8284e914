package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/**
 * Resizing the last one, two or three axes by a separable linear map, one matrix per axis ({@code y = A_h · x · A_wᵀ}
 * on planes): adaptive_avg_pool2d (each row of A the mean of its window) and interpolate (nearest, linear,
 * bilinear, bicubic, trilinear). Written as batched matmuls with constant matrices, axis by axis, so CUDA runs
 * them too; linear, so the JVP is the op itself and the VJP applies the transposed matrices
 * ({@code A_hᵀ · g · A_w}).
 *
 * <p>a matmul multiplies every element by its weight, 0 included, so a NaN or ∞ of x shows in
 * every output of its row or column (PyTorch's kernels read only the window).
 */
final class ResizeOps {
    private ResizeOps() {
    }

    /** The shared part: the matrices from the input's size, the shape rule, forward, VJP, rule. */
    abstract static class Separable extends Op {
        /** How many trailing axes are resized: 1 ([N, C, L]), 2 ([N, C, H, W]) or 3 ([N, C, D, H, W]). */
        final int spatial;
        /** The output size per resized axis, or null where the subclass computes it from the input's ({@link #out}). */
        final int[] size;

        /** A fixed output size (one integer for every axis, or one per axis), or (size null) one from the input's. */
        Separable(int[] size, int spatial, String op) {
            this.spatial = spatial;
            if (size == null) {
                this.size = null;
                return;
            }
            if (size.length != 1 && size.length != spatial) {
                throw new GradscopeException(op + ": the output size must be one integer" + (spatial == 1 ? "" : " or " + (spatial == 2 ? "two" : "three"))
                        + ", not " + size.length);
            }
            this.size = new int[spatial];
            for (int j = 0; j < spatial; j++) {
                this.size[j] = size[size.length == 1 ? 0 : j];
                if (this.size[j] < 1) {
                    throw new GradscopeException(op + ": the output size must be positive, not " + Param.valueText(size));
                }
            }
        }

        /** The [out, in] weights of one axis. */
        abstract double[] weights(int out, int in);

        /** The output size of resized axis {@code j} of size {@code in}: the fixed size. */
        int out(int in, int j) {
            return size[j];
        }

        Tensor matrix(int out, int in, Tensor like) {
            return Tensor.fromDoubles(like.dtype(), like.device(), weights(out, in), out, in);
        }

        /** One matrix product per axis, over the elements so far: a multiply and an add per term. */
        @Override
        public long flops(int[][] inputs, int[] output) {
            int[] cur = inputs[0].clone();
            long f = 0;
            for (int j = 0; j < spatial; j++) {
                int at = cur.length - spatial + j;
                f += 2 * Shapes.numel(cur) * (long) output[at];
                cur[at] = output[at];
            }
            return f;
        }

        private String layout() {
            return switch (spatial) {
                case 1 -> "[N, C, L] or [C, L]";
                case 2 -> "[N, C, H, W] or [C, H, W]";
                default -> "[N, C, D, H, W] or [C, D, H, W]";
            };
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            Checks.arity(name(), shapes, 1);
            Checks.floats(name(), dtypes, 0);
            int[] x = shapes[0];
            if (x.length != spatial + 1 && x.length != spatial + 2) {
                throw new GradscopeException(name() + ": x must be " + layout() + ", not shape " + Shapes.str(x));
            }
            int[] out = x.clone();
            for (int j = 0; j < spatial; j++) {
                int at = x.length - spatial + j;
                if (x[at] == 0) {
                    throw new GradscopeException(name() + ": cannot resize an empty " + (spatial == 1 ? "row" : "plane")
                            + ", shape " + Shapes.str(x));
                }
                out[at] = out(x[at], j);
            }
            for (int j = 0; j < spatial; j++) {
                if (out[x.length - spatial + j] < 1) {
                    throw new GradscopeException(name() + ": the output size must be positive, not " + Shapes.str(out) + " from "
                            + Shapes.str(x));
                }
            }
            return out;
        }

        /** The elements before and after axis {@code at}. */
        private static int[] around(int[] shape, int at) {
            return new int[] {Dependencies.numel(java.util.Arrays.copyOf(shape, at)),
                Dependencies.numel(java.util.Arrays.copyOfRange(shape, at + 1, shape.length))};
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            Tensor x = in[0];
            int[] y = outputShape(new int[][] {x.shape()}, new DType[] {x.dtype()});
            if (spatial == 2) {
                // the planes as they are: [oh, h] @ x, then @ [w, ow]
                int h = x.shape()[x.rank() - 2];
                int w = x.shape()[x.rank() - 1];
                Tensor rows = MatMulOp.batched(matrix(y[y.length - 2], h, x), x);
                return MatMulOp.batched(rows, matrix(y[y.length - 1], w, x).viewTranspose(0, 1));
            }
            Tensor t = x;
            for (int j = 0; j < spatial; j++) {
                int at = x.rank() - spatial + j;
                int[] shape = t.shape();
                int n = shape[at];
                int[] pq = around(shape, at);
                Tensor a = matrix(y[at], n, x);
                Tensor r = pq[1] == 1 ? MatMulOp.batched(t.reshapeOrCopy(new int[] {pq[0], n}), a.viewTranspose(0, 1))
                        : MatMulOp.batched(a, t.reshapeOrCopy(new int[] {pq[0], n, pq[1]}));
                shape[at] = y[at];
                t = r.viewReshape(shape);
            }
            return t;
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            int[] x = ctx.input(0).shape();
            if (spatial == 2) {
                int h = x[x.length - 2];
                int w = x[x.length - 1];
                Tensor ah = matrix(g.shape()[x.length - 2], h, g);
                Tensor aw = matrix(g.shape()[x.length - 1], w, g);
                return new Tensor[] {Ops.matmul(Ops.matmul(Ops.transpose(ah), g), aw)};
            }
            Tensor d = g;
            for (int j = 0; j < spatial; j++) {
                int at = x.length - spatial + j;
                int[] shape = d.shape();
                int m = shape[at];
                int[] pq = around(shape, at);
                Tensor a = matrix(m, x[at], g);
                Tensor r = pq[1] == 1 ? Ops.matmul(Ops.reshape(d, pq[0], m), a)
                        : Ops.matmul(Ops.transpose(a), Ops.reshape(d, pq[0], m, pq[1]));
                shape[at] = x[at];
                d = Ops.reshape(r, shape);
            }
            return new Tensor[] {d};
        }

        @Override
        public VjpReads vjpReads(boolean[] needsGrad) {
            return VjpReads.none(1);
        }

        /** Output (…, i, j) on input (…, a, b) where A_h[i, a] and A_w[j, b] are not 0 (and so on per axis). */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            int[] x = shapes[0];
            int[] y = outputShape(shapes, new DType[] {DType.FLOAT64});
            int lead = x.length - spatial;
            int[] n = java.util.Arrays.copyOfRange(x, lead, x.length);
            int[] m = java.util.Arrays.copyOfRange(y, lead, y.length);
            double[][] a = new double[spatial][];
            for (int j = 0; j < spatial; j++) {
                a[j] = weights(m[j], n[j]);
            }
            int planes = Dependencies.numel(java.util.Arrays.copyOf(x, lead));
            int inPlane = Dependencies.numel(n);
            int outPlane = Dependencies.numel(m);
            Pattern.Builder b = new Pattern.Builder(planes * outPlane, planes * inPlane);
            int[] oi = new int[spatial];
            int[] ii = new int[spatial];
            for (int p = 0; p < planes; p++) {
                for (int o = 0; o < outPlane; o++) {
                    unravel(o, m, oi);
                    for (int c = 0; c < inPlane; c++) {
                        unravel(c, n, ii);
                        boolean nz = true;
                        for (int j = 0; nz && j < spatial; j++) {
                            nz = a[j][oi[j] * n[j] + ii[j]] != 0;
                        }
                        if (nz) {
                            b.add(p * inPlane + c);
                        }
                    }
                    b.endRow();
                }
            }
            return b.build();
        }

        private static void unravel(int flat, int[] shape, int[] into) {
            for (int j = shape.length - 1; j >= 0; j--) {
                into[j] = flat % shape[j];
                flat /= shape[j];
            }
        }
    }

    /** F.adaptive_avg_pool2d / 3d(x, output_size): window i of n over L is [⌊iL/n⌋, ⌈(i+1)L/n⌉). */
    static final class AdaptiveAvgPool extends Separable {
        AdaptiveAvgPool(int[] size, int spatial) {
            super(size, spatial, "adaptive_avg_pool" + spatial + "d");
        }

        @Override
        public String name() {
            return "adaptive_avg_pool" + spatial + "d";
        }

        @Override
        public String label() {
            return name() + "(" + java.util.Arrays.stream(size).mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(", "))
                    + ")";
        }

        @Override
        public String rule() {
            return (spatial == 2 ? "dx = A_hᵀ · g · A_w" : "dx = g times A_dᵀ, A_hᵀ, A_wᵀ along its axes") + ", A the window means";
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

    /**
     * F.interpolate(x, size or scale_factor, mode="nearest", "linear" (x [N, C, L]), "bilinear", "bicubic" or
     * "trilinear" (x [N, C, D, H, W]), align_corners); nearest and bicubic resize planes.
     */
    static final class Interpolate extends Separable {
        private final boolean bilinear;
        private final boolean bicubic;
        private final boolean alignCorners;
        private final String label;
        /** scale_factor, or NaN where a size is given. */
        private final double scaleFactor;

        /** Either {@code size} or {@code scaleFactor} (the other null or NaN), as PyTorch asks. */
        Interpolate(int[] size, double scaleFactor, String mode, boolean alignCorners, String label) {
            super(size, mode.equals("linear") ? 1 : mode.equals("trilinear") ? 3 : 2, "interpolate");
            if ((size == null) == Double.isNaN(scaleFactor)) {
                throw new GradscopeException("interpolate: give either size or scale_factor (as PyTorch), not "
                        + (size == null ? "neither" : "both"));
            }
            if (!Double.isNaN(scaleFactor) && !(scaleFactor > 0)) {
                throw new GradscopeException("interpolate: scale_factor must be positive, not " + scaleFactor);
            }
            this.scaleFactor = scaleFactor;
            this.bilinear = mode.endsWith("linear");
            this.bicubic = mode.equals("bicubic");
            this.alignCorners = alignCorners;
            this.label = label;
            if (!bilinear && !bicubic && alignCorners) {
                throw new GradscopeException("interpolate: align_corners applies to the linear modes and bicubic only (as PyTorch)");
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
            return (spatial == 1 ? "dx = g · A" : spatial == 2 ? "dx = A_hᵀ · g · A_w" : "dx = g times A_dᵀ, A_hᵀ, A_wᵀ along its axes")
                    + ", A the " + (bilinear ? "linear" : bicubic ? "bicubic" : "nearest") + " weights";
        }

        /** With scale_factor: ⌊in · scale_factor⌋ (PyTorch's output size). */
        @Override
        int out(int in, int j) {
            return Double.isNaN(scaleFactor) ? super.out(in, j) : (int) Math.floor(in * scaleFactor);
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
