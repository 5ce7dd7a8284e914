package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * conv3d, max_pool3d and avg_pool3d written with the 2-D and 1-D window ops (Note [A 3-D window as a 2-D
 * one]). conv3d: the depth padded, the kd depth taps every window reads (tap i of output depth t reads
 * depth t·sd + i·dd) taken as stepped slices, stacked on the channels (channel c·kd + i, as the weight's
 * [O, C, kd] flattens) and the output depths folded into the batch, one conv2d. The pools are separable:
 * the 2-D pool over height and width, then the 1-D pool over depth, each with its own rules (PyTorch's
 * ceil_mode; count_include_pad, its divisor a product per axis; the first maximum of a window, which is
 * the first in the 3-D window's raster order: the first depth that holds the maximum, there the first
 * position). As {@link ChainOp}s, their VJP, JVP and dependency rule are the steps'.
 */
final class Conv3dPool3d {
    private Conv3dPool3d() {
    }

    /** One integer for every axis or one per axis (three), each at least {@code min}. */
    static int[] perAxis(String op, String what, int[] v, int min) {
        if (v.length != 1 && v.length != 3) {
            throw new GradscopeException(op + ": " + what + " must be one integer or 3, not " + Arrays.toString(v));
        }
        int[] out = new int[3];
        for (int i = 0; i < 3; i++) {
            out[i] = v[v.length == 1 ? 0 : i];
            if (out[i] < min) {
                throw new GradscopeException(op + ": " + what + " must be at least " + min + ", not " + out[i]);
            }
        }
        return out;
    }

    private static int[] hw(int[] v) {
        return new int[] {v[1], v[2]};
    }

    private static Map<String, Object> attrs(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static void rank5(String op, int[] x) {
        if (x.length != 5) {
            throw new GradscopeException(op + ": x must be [N, C, D, H, W] or [C, D, H, W], not shape " + Shapes.str(x));
        }
    }

    /** The taps of x's depth as one value [N, C, kd·od, H, W] (tap-major): stepped slices of the padded depth, stacked. */
    private static int taps(ChainOp.Plan p, int x, int before, int after, double value, int kd, int sd, int dd, int od) {
        int padded = before > 0 || after > 0 ? p.add("pad", attrs("axis", 2, "before", before, "after", after, "value", value), x) : x;
        int[] tap = new int[kd];
        for (int i = 0; i < kd; i++) {
            tap[i] = p.add("slice", attrs("axis", 2, "start", i * dd, "stop", i * dd + (od - 1) * sd + 1, "step", sd), padded);
        }
        return kd == 1 ? tap[0] : p.add("concat", attrs("axis", 2), tap);
    }

    /** F.conv3d(x, weight, bias, stride, padding, dilation, groups). */
    static final class Conv3d extends ChainOp {
        private final int[] stride;
        private final int[] padding;
        private final int[] dilation;
        private final int groups;

        Conv3d(int[] stride, int[] padding, int[] dilation, int groups) {
            this.stride = perAxis("conv3d", "stride", stride, 1);
            this.padding = perAxis("conv3d", "padding", padding, 0);
            this.dilation = perAxis("conv3d", "dilation", dilation, 1);
            if (groups < 1) {
                throw new GradscopeException("conv3d: groups must be at least 1, not " + groups);
            }
            this.groups = groups;
        }

        @Override
        public String name() {
            return "conv3d";
        }

        @Override
        public String rule() {
            return "the steps' VJPs: conv2d's over the depth taps folded into the batch";
        }

        @Override
        Plan plan(int[][] shapes, DType dtype) {
            if (shapes.length != 2 && shapes.length != 3) {
                throw new GradscopeException("conv3d: takes x, weight and an optional bias, got " + shapes.length + " tensors");
            }
            int[] x = shapes[0];
            int[] w = shapes[1];
            rank5("conv3d", x);
            if (w.length != 5) {
                throw new GradscopeException("conv3d: weight must be [O, C/groups, kD, kH, kW], not shape " + Shapes.str(w));
            }
            if (x[1] != w[1] * groups) {
                throw new GradscopeException("conv3d: x has " + x[1] + " channels; weight " + Shapes.str(w) + " with groups=" + groups
                        + " takes " + w[1] * groups);
            }
            int kd = w[2];
            int span = dilation[0] * (kd - 1) + 1;
            int depth = x[2] + 2 * padding[0];
            if (depth < span) {
                throw new GradscopeException("conv3d: the input " + Shapes.str(x) + " (padded by " + padding[0]
                        + ") is shallower than the kernel (" + span + ")");
            }
            int od = (depth - span) / stride[0] + 1;
            Plan p = new Plan(shapes, dtype);
            int t = taps(p, 0, padding[0], padding[0], 0.0, kd, stride[0], dilation[0], od);
            // [N, C, kd, od, H, W] → [N, od, C, kd, H, W] → [N·od, C·kd, H, W]: channel c·kd + i, as the weight's
            int s = p.add("reshape", attrs("shape", new int[] {x[0], x[1], kd, od, x[3], x[4]}), t);
            s = p.add("permute", attrs("perm", new int[] {0, 3, 1, 2, 4, 5}), s);
            int xb = p.add("reshape", attrs("shape", new int[] {x[0] * od, x[1] * kd, x[3], x[4]}), s);
            int wb = p.add("reshape", attrs("shape", new int[] {w[0], w[1] * kd, w[3], w[4]}), 1);
            Map<String, Object> conv = attrs("stride", hw(stride), "padding", hw(padding), "dilation", hw(dilation), "groups", groups);
            int yb = shapes.length == 3 ? p.add("conv2d", conv, xb, wb, 2) : p.add("conv2d", conv, xb, wb);
            int[] y = p.shape(yb);
            int y5 = p.add("reshape", attrs("shape", new int[] {x[0], od, w[0], y[2], y[3]}), yb);
            p.add("permute", attrs("perm", new int[] {0, 2, 1, 3, 4}), y5);
            return p;
        }

        /**
         * On the weight, output (n, o, t, i, j) reads w[o, c, a, b, e] where its input position lies inside x (not in the
         * padding): conv2d's own rule cannot tell the depth padding's zeros among its input's values.
         */
        @Override
        public Pattern dependencies(int input, int[][] shapes) {
            if (input != 1) {
                return super.dependencies(input, shapes);
            }
            int[] x = shapes[0];
            int[] w = shapes[1];
            int[] y = outputShape(shapes, java.util.Collections.nCopies(shapes.length, DType.FLOAT64).toArray(new DType[0]));
            int per = w[1] * w[2] * w[3] * w[4];
            Pattern.Builder b = new Pattern.Builder(Dependencies.numel(y), Dependencies.numel(w));
            int[] at = new int[3];
            for (int r = 0; r < Dependencies.numel(y); r++) {
                int j = r % y[4];
                int i = r / y[4] % y[3];
                int t = r / (y[4] * y[3]) % y[2];
                int o = r / (y[4] * y[3] * y[2]) % y[1];
                for (int k = 0; k < per; k++) {
                    int e = k % w[4];
                    int bb = k / w[4] % w[3];
                    int a = k / (w[4] * w[3]) % w[2];
                    at[0] = t * stride[0] + a * dilation[0] - padding[0];
                    at[1] = i * stride[1] + bb * dilation[1] - padding[1];
                    at[2] = j * stride[2] + e * dilation[2] - padding[2];
                    if (at[0] >= 0 && at[0] < x[2] && at[1] >= 0 && at[1] < x[3] && at[2] >= 0 && at[2] < x[4]) {
                        b.add(o * per + k);
                    }
                }
                b.endRow();
            }
            return b.build();
        }

        @Override
        public Pattern localDependencies(int input, OpContext ctx) {
            return input == 1 ? dependencies(1, Dependencies.shapes(ctx)) : super.localDependencies(input, ctx);
        }
    }

    /** F.max_pool3d and F.avg_pool3d (no divisor_override): separable, the 2-D pool over height and width, then the 1-D over depth. */
    static final class Pool3d extends ChainOp {
        private final boolean max;
        private final int[] kernel;
        private final int[] stride;
        private final int[] padding;
        private final int[] dilation;
        private final boolean ceil;
        private final boolean countIncludePad;

        Pool3d(boolean max, int[] kernel, int[] stride, int[] padding, int[] dilation, boolean ceil, boolean countIncludePad) {
            this.max = max;
            this.kernel = perAxis(name(), "kernel_size", kernel, 1);
            this.stride = stride == null ? this.kernel : perAxis(name(), "stride", stride, 1);
            this.padding = perAxis(name(), "padding", padding, 0);
            this.dilation = perAxis(name(), "dilation", dilation, 1);
            this.ceil = ceil;
            this.countIncludePad = countIncludePad;
            for (int i = 0; i < 3; i++) {
                if (this.padding[i] > this.kernel[i] / 2) {
                    throw new GradscopeException(name() + ": padding must be at most half the kernel size");
                }
            }
        }

        @Override
        public String name() {
            return max ? "max_pool3d" : "avg_pool3d";
        }

        @Override
        public String rule() {
            return "the steps' VJPs: " + (max ? "max_pool1d's over depth, then max_pool2d's (the first maximum)"
                    : "avg_pool1d's over depth, then avg_pool2d's (PyTorch's divisor is a product per axis)");
        }

        @Override
        Plan plan(int[][] shapes, DType dtype) {
            Checks.arity(name(), shapes, 1);
            int[] x = shapes[0];
            rank5(name(), x);
            Plan p = new Plan(shapes, dtype);
            Map<String, Object> plane = attrs("kernel_size", hw(kernel), "stride", hw(stride), "padding", hw(padding), "ceil_mode", ceil);
            Map<String, Object> depth = attrs("kernel_size", new int[] {kernel[0]}, "stride", new int[] {stride[0]},
                    "padding", new int[] {padding[0]}, "ceil_mode", ceil);
            for (Map<String, Object> m : List.of(plane, depth)) {
                if (max) {
                    m.put("dilation", m == plane ? hw(dilation) : new int[] {dilation[0]});
                } else {
                    m.put("count_include_pad", countIncludePad);
                }
            }
            // [N, C·D, H, W] pooled over H, W; then [N, C·oh·ow, D] pooled over D; then [N, C, od, oh, ow]
            int v = p.add("reshape", attrs("shape", new int[] {x[0], x[1] * x[2], x[3], x[4]}), 0);
            v = p.add(max ? "max_pool2d" : "avg_pool2d", plane, v);
            int[] y = p.shape(v);
            v = p.add("reshape", attrs("shape", new int[] {x[0], x[1], x[2], y[2] * y[3]}), v);
            v = p.add("permute", attrs("perm", new int[] {0, 1, 3, 2}), v);
            v = p.add("reshape", attrs("shape", new int[] {x[0], x[1] * y[2] * y[3], x[2]}), v);
            v = p.add(max ? "max_pool1d" : "avg_pool1d", depth, v);
            int od = p.shape(v)[2];
            v = p.add("reshape", attrs("shape", new int[] {x[0], x[1], y[2], y[3], od}), v);
            p.add("permute", attrs("perm", new int[] {0, 1, 4, 2, 3}), v);
            return p;
        }
    }
}
