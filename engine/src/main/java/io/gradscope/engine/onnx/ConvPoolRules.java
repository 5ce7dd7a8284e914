package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.onnx.Translator.Tensor;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Conv, MaxPool and AveragePool: ONNX's window attributes (kernel_shape, strides, pads as begins then
 * ends, dilations, auto_pad, ceil_mode) as the program's conv1d/conv2d and pooling calls (ceil_mode as
 * the pools' own). Padding
 * that differs between the two sides of an axis becomes an explicit zero pad where that is exact.
 */
final class ConvPoolRules {
    private ConvPoolRules() {
    }

    /** The resolved window of a node over {@code spatial} axes of an input of shape {@code x}. */
    private record Geometry(int[] kernel, int[] stride, int[] dilation, int[] begin, int[] end) {
        boolean symmetric() {
            return Arrays.equals(begin, end);
        }

        int[] padding() {
            int[] p = new int[begin.length];
            for (int i = 0; i < p.length; i++) {
                p[i] = Math.min(begin[i], end[i]);
            }
            return p;
        }
    }

    private static int[] orOnes(int[] v, int n) {
        if (v != null) {
            return v;
        }
        int[] ones = new int[n];
        Arrays.fill(ones, 1);
        return ones;
    }

    private static Geometry geometry(OnnxMl.NodeProto n, Attrs at, int[] x, int[] kernel) {
        int sp = kernel.length;
        int[] stride = orOnes(at.ints("strides"), sp);
        int[] dil = orOnes(at.ints("dilations"), sp);
        int[] begin = new int[sp];
        int[] end = new int[sp];
        String auto = at.s("auto_pad", "NOTSET");
        switch (auto) {
            case "NOTSET" -> {
                int[] pads = at.ints("pads");
                if (pads != null) {
                    if (pads.length != 2 * sp) {
                        throw OpRules.unsupported(n.getOpType() + " with " + pads.length + " pads for " + sp + " spatial axes");
                    }
                    begin = Arrays.copyOf(pads, sp);
                    end = Arrays.copyOfRange(pads, sp, 2 * sp);
                }
            }
            case "VALID" -> { }
            case "SAME_UPPER", "SAME_LOWER" -> {
                for (int i = 0; i < sp; i++) {
                    int in = x[x.length - sp + i];
                    int out = (in + stride[i] - 1) / stride[i];
                    int total = Math.max(0, (out - 1) * stride[i] + (kernel[i] - 1) * dil[i] + 1 - in);
                    begin[i] = auto.equals("SAME_UPPER") ? total / 2 : total - total / 2;
                    end[i] = total - begin[i];
                }
            }
            default -> throw OpRules.unsupported(n.getOpType() + " with auto_pad=" + auto);
        }
        return new Geometry(kernel, stride, dil, begin, end);
    }

    /** {@code x} with the unequal part of the padding written as explicit zero pads; updates {@code shape}. */
    private static String extraPad(String x, int[] shape, Geometry g) {
        int sp = g.kernel().length;
        String expr = x;
        for (int i = 0; i < sp; i++) {
            int axis = shape.length - sp + i;
            int before = g.begin()[i] - g.padding()[i];
            int after = g.end()[i] - g.padding()[i];
            if (before > 0 || after > 0) {
                expr = "pad(" + expr + ", " + axis + ", " + before + ", " + after + ")";
                shape[axis] += before + after;
            }
        }
        return expr;
    }

    private static String attr(String name, int[] v, int dflt) {
        boolean all = true;
        for (int x : v) {
            all &= x == dflt;
        }
        return all ? "" : ", " + name + "=" + OpRules.ints(v);
    }

    static String conv(OpRules r, OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        Tensor w = r.floatTensor(n, 1);
        int sp = x.rank() - 2;
        if (sp < 1 || sp > 3) {
            return "Conv over " + sp + " spatial axes";
        }
        int[] kernel = at.ints("kernel_shape") != null ? at.ints("kernel_shape") : Arrays.copyOfRange(w.shape(), 2, w.rank());
        Geometry g = geometry(n, at, x.shape(), kernel);
        int groups = (int) at.i("group", 1);
        if (sp == 3) {
            return conv3d(r, n, x, w, g, groups);
        }
        int[] xs = x.shape();
        String input = extraPad(x.name(), xs, g);
        Tensor padded = new Tensor(input, xs, false);
        Tensor b = r.translator().present(n, 2) ? r.floatTensor(n, 2) : null;
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("stride", g.stride());
        attrs.put("padding", g.padding());
        attrs.put("dilation", g.dilation());
        attrs.put("groups", groups);
        String fn = "conv" + sp + "d";
        int[] shape = b == null ? r.shape(n, fn, attrs, padded, w) : r.shape(n, fn, attrs, padded, w, b);
        String expr = fn + "(" + input + ", " + w.name() + (b == null ? "" : ", " + b.name()) + attr("stride", g.stride(), 1)
                + attr("padding", g.padding(), 0) + attr("dilation", g.dilation(), 1) + (groups != 1 ? ", groups=" + groups : "") + ")";
        r.translator().emit(n, 0, expr, shape, false);
        return null;
    }

    /**
     * Conv over three spatial axes (r3d_18's Conv3d) as one conv2d, Note [A 3-D convolution as a 2-D one]:
     * the depth is padded, the kd depth slices every window reads (each with the depth stride as its step)
     * are stacked on the channels, the output depths moved into the batch, and the weight's depth taps
     * moved next to its channels: {@code y[n, o, t] = Σ_i conv2d(x[n, :, t·sd + i·dd], w[:, :, i])}. Every
     * step is a program op, so the gradients, the JVP and higher derivatives are theirs.
     */
    private static String conv3d(OpRules r, OnnxMl.NodeProto n, Tensor x, Tensor w, Geometry g, int groups) {
        if (groups != 1) {
            return "Conv over 3 spatial axes with groups";
        }
        int[] xs = x.shape();
        int[] ws = w.shape();
        int kd = g.kernel()[0];
        int sd = g.stride()[0];
        int dd = g.dilation()[0];
        String input = x.name();
        if (g.begin()[0] > 0 || g.end()[0] > 0) {
            xs[2] += g.begin()[0] + g.end()[0];
            String pad = "pad(" + input + ", 2, " + g.begin()[0] + ", " + g.end()[0] + ")";
            input = kd == 1 ? pad : r.translator().step(n, null, "padded", pad, xs.clone()).name();
        }
        int span = dd * (kd - 1) + 1;
        if (xs[2] < span) {
            return "Conv over 3 spatial axes whose depth is smaller than its window";
        }
        int od = (xs[2] - span) / sd + 1;
        StringBuilder taps = new StringBuilder();
        for (int i = 0; i < kd; i++) {
            int start = i * dd;
            taps.append(i == 0 ? "" : ", ").append("slice(").append(input).append(", 2, ").append(start).append(", ")
                    .append(start + (od - 1) * sd + 1).append(sd == 1 ? "" : ", step=" + sd).append(")");
        }
        String stacked = kd == 1 ? taps.toString() : "concat(" + taps + ", axis=1)";
        int c = xs[1] * kd;
        int[] planes = {xs[0] * od, c, xs[3], xs[4]};
        Geometry plane = new Geometry(Arrays.copyOfRange(g.kernel(), 1, 3), Arrays.copyOfRange(g.stride(), 1, 3),
                Arrays.copyOfRange(g.dilation(), 1, 3), Arrays.copyOfRange(g.begin(), 1, 3), Arrays.copyOfRange(g.end(), 1, 3));
        String batch = extraPad("reshape(permute(" + stacked + ", 0, 2, 1, 3, 4), " + ProgramText.dimsText(planes, false) + ")", planes, plane);
        String weight = "reshape(permute(" + w.name() + ", 0, 2, 1, 3, 4), " + ws[0] + ", " + c + ", " + ws[3] + ", " + ws[4] + ")";
        Tensor b = r.translator().present(n, 2) ? r.floatTensor(n, 2) : null;
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("stride", plane.stride());
        attrs.put("padding", plane.padding());
        attrs.put("dilation", plane.dilation());
        int[] y = r.shape(n, "conv2d", attrs, new Tensor(batch, planes, false), new Tensor(weight, new int[] {ws[0], c, ws[3], ws[4]}, false));
        String conv = "conv2d(" + batch + ", " + weight + (b == null ? "" : ", " + b.name()) + attr("stride", plane.stride(), 1)
                + attr("padding", plane.padding(), 0) + attr("dilation", plane.dilation(), 1) + ")";
        int[] shape = {xs[0], ws[0], od, y[2], y[3]};
        String expr = "permute(reshape(" + conv + ", " + xs[0] + ", " + od + ", " + ws[0] + ", " + y[2] + ", " + y[3] + "), 0, 2, 1, 3, 4)";
        r.translator().emit(n, 0, expr, shape, false);
        return null;
    }

    /** ConvTranspose (1-D, 2-D) as conv_transpose1d/2d: symmetric pads, output_padding, no output_shape. */
    static String convTranspose(OpRules r, OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        Tensor w = r.floatTensor(n, 1);
        int sp = x.rank() - 2;
        if (sp != 1 && sp != 2) {
            return "ConvTranspose over " + sp + " spatial axes";
        }
        if (at.has("output_shape")) {
            return "ConvTranspose with output_shape";
        }
        if (!at.s("auto_pad", "NOTSET").equals("NOTSET")) {
            return "ConvTranspose with auto_pad=" + at.s("auto_pad", "NOTSET");
        }
        int[] kernel = at.ints("kernel_shape") != null ? at.ints("kernel_shape") : Arrays.copyOfRange(w.shape(), 2, w.rank());
        Geometry g = geometry(n, at, x.shape(), kernel);
        if (!g.symmetric()) {
            return "ConvTranspose with padding that differs between the two sides of an axis";
        }
        int[] outPad = at.ints("output_padding") != null ? at.ints("output_padding") : new int[sp];
        int groups = (int) at.i("group", 1);
        Tensor b = r.translator().present(n, 2) ? r.floatTensor(n, 2) : null;
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("stride", g.stride());
        attrs.put("padding", g.padding());
        attrs.put("output_padding", outPad);
        attrs.put("dilation", g.dilation());
        attrs.put("groups", groups);
        String fn = "conv_transpose" + sp + "d";
        int[] shape = b == null ? r.shape(n, fn, attrs, x, w) : r.shape(n, fn, attrs, x, w, b);
        String expr = fn + "(" + x.name() + ", " + w.name() + (b == null ? "" : ", " + b.name()) + attr("stride", g.stride(), 1)
                + attr("padding", g.padding(), 0) + attr("output_padding", outPad, 0) + (groups != 1 ? ", groups=" + groups : "")
                + attr("dilation", g.dilation(), 1) + ")";
        r.translator().emit(n, 0, expr, shape, false);
        return null;
    }

    static String pool(OpRules r, OnnxMl.NodeProto n, Attrs at, boolean max) {
        String op = n.getOpType();
        if (n.getOutputCount() > 1 && !n.getOutput(1).isEmpty()) {
            return op + " with its Indices output";
        }
        Tensor x = r.floatTensor(n, 0);
        int sp = x.rank() - 2;
        int[] kernel = at.ints("kernel_shape");
        if (kernel == null || kernel.length != sp || sp < 1 || sp > 3) {
            return op + " over " + sp + " spatial axes";
        }
        Geometry g = geometry(n, at, x.shape(), kernel);
        if (sp == 3) {
            return pool3d(r, n, at, x, g, max);
        }
        boolean countPad = at.i("count_include_pad", 0) != 0;
        int[] xs = x.shape();
        String input = x.name();
        if (!g.symmetric()) {
            if (max || !countPad) {
                return op + " with padding that differs between the two sides of an axis";
            }
            input = extraPad(input, xs, g);
        }
        // ceil_mode as the op's own (PyTorch's rule; PyTorch exports its pools with it)
        boolean ceil = at.i("ceil_mode", 0) != 0;
        String fn = (max ? "max_pool" : "avg_pool") + sp + "d";
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("kernel_size", kernel);
        attrs.put("stride", g.stride());
        attrs.put("padding", g.padding());
        attrs.put("ceil_mode", ceil);
        if (max) {
            attrs.put("dilation", g.dilation());
        } else {
            for (int d : g.dilation()) {
                if (d != 1) {
                    return op + " with dilations";
                }
            }
            attrs.put("count_include_pad", countPad);
        }
        int[] shape = r.shape(n, fn, attrs, new Tensor(input, xs, false));
        boolean padded = !Arrays.stream(g.padding()).allMatch(p -> p == 0);
        String expr = fn + "(" + input + ", kernel_size=" + OpRules.ints(kernel) + ", stride=" + OpRules.ints(g.stride())
                + attr("padding", g.padding(), 0) + (max ? attr("dilation", g.dilation(), 1) : "") + (ceil ? ", ceil_mode=True" : "")
                + (!max && padded && !countPad ? ", count_include_pad=False" : "") + ")";
        r.translator().emit(n, 0, expr, shape, false);
        return null;
    }

    /**
     * MaxPool and AveragePool over 3 spatial axes as one 2-D pool, Note [A 3-D pool as a 2-D one]: as a 3-D
     * convolution (Note [A 3-D convolution as a 2-D one]), the kd depth taps every window reads, each a stepped
     * slice of the depth-padded input, are stacked on the depth axis and folded into the channels; the 2-D pool
     * takes the height and width, and the max (the first maximum, as PyTorch's raster order) or the mean over
     * the taps the depth: {@code y[n, c, t] = max_i pool2d(x[n, c, t·sd + i − pd])}. The depth is padded by
     * repeating its edge for the max (exact: a window with a padded tap also holds the edge, dilation 1) and with
     * zeros for the mean (count_include_pad, the mean's divisor kd·kh·kw). Every step is a program op.
     */
    private static String pool3d(OpRules r, OnnxMl.NodeProto n, Attrs at, Tensor x, Geometry g, boolean max) {
        String op = n.getOpType();
        int[] xs = x.shape();
        int kd = g.kernel()[0];
        int sd = g.stride()[0];
        if (g.dilation()[0] != 1) {
            return op + " over 3 spatial axes with a depth dilation";
        }
        boolean countPad = at.i("count_include_pad", 0) != 0;
        boolean depthPad = g.begin()[0] > 0 || g.end()[0] > 0;
        if (!max && !countPad && Arrays.stream(g.padding()).anyMatch(p -> p > 0)) {
            return op + " over 3 spatial axes with padding and count_include_pad=0";
        }
        int depth = xs[2] + g.begin()[0] + g.end()[0];
        if (depth < kd) {
            return op + " over 3 spatial axes whose depth is smaller than its window";
        }
        int od = (depth - kd) / sd + 1;
        boolean ceil = at.i("ceil_mode", 0) != 0;
        int odCeil = (depth - kd + sd - 1) / sd + 1;
        if (odCeil > od && (odCeil - 1) * sd >= xs[2] + g.begin()[0]) {
            odCeil--; // PyTorch's rule: the last window starts inside the input or its left padding
        }
        if (ceil && odCeil != od) {
            return op + " over 3 spatial axes with ceil_mode adding a depth window";
        }
        String input = x.name();
        if (depthPad) {
            String pad = "pad(" + input + ", 2, " + g.begin()[0] + ", " + g.end()[0] + (max ? ", mode=\"replicate\")" : ")");
            int[] padded = xs.clone();
            padded[2] = depth;
            input = kd == 1 ? pad : r.translator().step(n, null, "padded", pad, padded).name();
        }
        StringBuilder taps = new StringBuilder();
        for (int i = 0; i < kd; i++) {
            taps.append(i == 0 ? "" : ", ").append("slice(").append(input).append(", 2, ").append(i).append(", ")
                    .append(i + (od - 1) * sd + 1).append(sd == 1 ? "" : ", step=" + sd).append(")");
        }
        String stacked = kd == 1 ? taps.toString() : "concat(" + taps + ", axis=2)";
        int[] planes = {xs[0], xs[1] * kd * od, xs[3], xs[4]};
        Geometry plane = new Geometry(Arrays.copyOfRange(g.kernel(), 1, 3), Arrays.copyOfRange(g.stride(), 1, 3),
                Arrays.copyOfRange(g.dilation(), 1, 3), Arrays.copyOfRange(g.begin(), 1, 3), Arrays.copyOfRange(g.end(), 1, 3));
        String folded = "reshape(" + stacked + ", " + ProgramText.dimsText(planes, false) + ")";
        if (!plane.symmetric()) {
            if (max) {
                return op + " with padding that differs between the two sides of an axis";
            }
            folded = extraPad(folded, planes, plane);
        }
        String fn = max ? "max_pool2d" : "avg_pool2d";
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("kernel_size", plane.kernel());
        attrs.put("stride", plane.stride());
        attrs.put("padding", plane.padding());
        attrs.put("ceil_mode", ceil);
        if (max) {
            attrs.put("dilation", plane.dilation());
        } else if (Arrays.stream(plane.dilation()).anyMatch(d -> d != 1)) {
            return op + " with dilations";
        }
        int[] y = r.shape(n, fn, attrs, new Tensor(folded, planes, false));
        String pooled = fn + "(" + folded + ", kernel_size=" + OpRules.ints(plane.kernel()) + ", stride=" + OpRules.ints(plane.stride())
                + attr("padding", plane.padding(), 0) + (max ? attr("dilation", plane.dilation(), 1) : "") + (ceil ? ", ceil_mode=True" : "")
                + ")";
        int[] shape = {xs[0], xs[1], od, y[2], y[3]};
        String expr = kd == 1 ? "reshape(" + pooled + ", " + ProgramText.dimsText(shape, false) + ")"
                : (max ? "max" : "mean") + "(reshape(" + pooled + ", " + xs[0] + ", " + xs[1] + ", " + kd + ", " + od + ", " + y[2] + ", " + y[3]
                + "), axis=2)";
        r.translator().emit(n, 0, expr, shape, false);
        return null;
    }
}
