package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.onnx.Translator.LeafKind;
import io.gradscope.engine.onnx.Translator.Tensor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The operators PyTorch 1.13 exports for the ops PyTorch users reach for (issue 33), each as the op
 * table's own function: CumSum, ReduceProd, GatherElements, ScatterElements (add), Einsum, Trilu,
 * Max/Min of computed tensors, InstanceNormalization (how PyTorch exports group_norm too: a reshape
 * to [N, G, -1] around it) and Resize (nn.Upsample, F.interpolate: nearest, bilinear).
 */
final class TensorRules {
    private final OpRules r;
    private final Translator t;

    TensorRules(OpRules r) {
        this.r = r;
        this.t = r.translator();
    }

    /** Writes node {@code n}; null, or what is unsupported about it. */
    String write(OnnxMl.NodeProto n, String op, Attrs at) {
        return switch (op) {
            case "CumSum" -> cumsum(n, at);
            case "ReduceProd" -> prod(n, at);
            case "GatherElements" -> gatherElements(n, at);
            case "ScatterElements" -> scatterAdd(n, at);
            case "Einsum" -> einsum(n, at);
            case "Trilu" -> trilu(n, at);
            case "Max", "Min" -> extremum(n, op.equals("Max") ? "maximum" : "minimum");
            case "InstanceNormalization" -> instanceNorm(n, at);
            case "Resize" -> resize(n, at);
            default -> op + " (no rule)";
        };
    }

    private String emit(OnnxMl.NodeProto n, String fn, Map<String, Object> attrs, String args, Tensor... ins) {
        int[] shape = r.shape(n, fn, attrs, ins);
        String names = java.util.Arrays.stream(ins).map(Tensor::name).collect(Collectors.joining(", "));
        t.emit(n, 0, fn + "(" + names + args + ")", shape, false);
        return null;
    }

    private String cumsum(OnnxMl.NodeProto n, Attrs at) {
        if (at.i("exclusive", 0) != 0 || at.i("reverse", 0) != 0) {
            return "CumSum with exclusive or reverse";
        }
        Tensor x = r.floatTensor(n, 0);
        int a = OpRules.axis((int) r.knownInts(n, 1, "axis")[0], x.rank());
        return emit(n, "cumsum", Map.of("axis", a), ", axis=" + a, x);
    }

    private String prod(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        int[] axes = at.ints("axes");
        if (axes == null && t.present(n, 1)) {
            axes = java.util.Arrays.stream(r.knownInts(n, 1, "axes")).mapToInt(v -> (int) v).toArray();
        }
        boolean keep = at.i("keepdims", 1) != 0;
        if (axes != null && axes.length > 1) {
            return "ReduceProd over " + axes.length + " axes (prod takes one)";
        }
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("axis", axes == null || axes.length == 0 ? null : new int[] {axes[0]});
        attrs.put("keepdim", keep);
        String args = (attrs.get("axis") == null ? "" : ", axis=" + axes[0]) + (keep ? ", keepdim=True" : "");
        return emit(n, "prod", attrs, args, x);
    }

    private String gatherElements(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        Tensor index = t.tensor(n, 1, LeafKind.CONSTANT);
        int a = OpRules.axis((int) at.i("axis", 0), x.rank());
        return emit(n, "gather", Map.of("axis", a), ", axis=" + a, x, index);
    }

    private String scatterAdd(OnnxMl.NodeProto n, Attrs at) {
        if (!at.s("reduction", "none").equals("add")) {
            return "ScatterElements with reduction=" + at.s("reduction", "none") + " (only add: scatter_add)";
        }
        Tensor x = r.floatTensor(n, 0);
        Tensor index = t.tensor(n, 1, LeafKind.CONSTANT);
        Tensor src = r.floatTensor(n, 2);
        int a = OpRules.axis((int) at.i("axis", 0), x.rank());
        return emit(n, "scatter_add", Map.of("axis", a), ", axis=" + a, x, index, src);
    }

    private String einsum(OnnxMl.NodeProto n, Attrs at) {
        List<Tensor> xs = new ArrayList<>();
        for (int i = 0; i < n.getInputCount(); i++) {
            xs.add(r.floatTensor(n, i));
        }
        String eq = at.s("equation", "").replace(" ", "");
        return emit(n, "einsum", Map.of("equation", eq), ", equation=\"" + eq + "\"", xs.toArray(new Tensor[0]));
    }

    private String trilu(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        int k = t.present(n, 1) ? (int) r.knownInts(n, 1, "k")[0] : 0;
        String fn = at.i("upper", 1) != 0 ? "triu" : "tril";
        return emit(n, fn, Map.of("diagonal", k), k == 0 ? "" : ", diagonal=" + k, x);
    }

    /** Max/Min of computed tensors, pairwise from the left (known ones are folded before). */
    private String extremum(OnnxMl.NodeProto n, String fn) {
        Tensor acc = r.floatTensor(n, 0);
        if (n.getInputCount() == 1) {
            return r.alias(n);
        }
        String expr = acc.name();
        int[] shape = acc.shape();
        for (int i = 1; i < n.getInputCount(); i++) {
            Tensor b = r.floatTensor(n, i);
            shape = r.shape(n, fn, Map.of(), new Tensor(expr, shape, false), b);
            expr = fn + "(" + expr + ", " + b.name() + ")";
        }
        t.emit(n, 0, expr, shape, false);
        return null;
    }

    /** group_norm with a group per channel: each (sample, channel) normalized over the rest. */
    private String instanceNorm(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        Tensor scale = r.floatTensor(n, 1);
        Tensor bias = r.floatTensor(n, 2);
        if (x.rank() < 3) {
            return "InstanceNormalization of a tensor of rank " + x.rank();
        }
        double eps = OpRules.floatAttr(at.f("epsilon", 1e-5));
        int c = x.shape()[1];
        return emit(n, "group_norm", Map.of("num_groups", c, "eps", eps), ", num_groups=" + c + ", eps=" + OpRules.number(eps),
                x, scale, bias);
    }

    /**
     * Resize of the last two axes of {@code [N, C, H, W]}: nearest (asymmetric, floor; PyTorch's
     * "nearest") or linear (half_pixel or pytorch_half_pixel: bilinear; align_corners), with the
     * sizes input as interpolate's size, or the scales (one for both spatial axes) as its scale_factor.
     */
    private String resize(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        if (x.rank() != 4) {
            return "Resize of a tensor of rank " + x.rank();
        }
        String mode = at.s("mode", "nearest");
        String coords = at.s("coordinate_transformation_mode", "half_pixel");
        String args;
        boolean alignCorners = false;
        if (mode.equals("nearest")) {
            if (!coords.equals("asymmetric") || !at.s("nearest_mode", "round_prefer_floor").equals("floor")) {
                return "Resize nearest with " + coords + " coordinates and nearest_mode " + at.s("nearest_mode", "round_prefer_floor");
            }
            args = "";
        } else if (mode.equals("linear")) {
            alignCorners = coords.equals("align_corners");
            if (!alignCorners && !coords.equals("half_pixel") && !coords.equals("pytorch_half_pixel")) {
                return "Resize linear with " + coords + " coordinates";
            }
            args = ", mode=\"bilinear\"" + (alignCorners ? ", align_corners=True" : "");
        } else {
            return "Resize in " + mode + " mode";
        }
        int[] in = x.shape();
        int[] out = new int[4];
        Map<String, Object> attrs = new HashMap<>();
        String how;
        if (t.present(n, 3)) {
            long[] sizes = r.knownInts(n, 3, "sizes");
            for (int i = 0; i < 4; i++) {
                out[i] = (int) sizes[i];
            }
            attrs.put("size", new int[] {out[2], out[3]});
            how = ", size=(" + out[2] + ", " + out[3] + ")";
        } else {
            Const sc = t.known(n, 2);
            if (sc == null) {
                return "Resize with computed scales";
            }
            double[] scales = sc.data();
            if (scales.length != 4 || scales[0] != 1 || scales[1] != 1) {
                return "Resize of the batch or channel axis";
            }
            if (scales[2] != scales[3]) {
                return "Resize with two different scales";
            }
            // the scale itself, as PyTorch's run used it (interpolate's scale_factor): where in · scale is not whole,
            // output i reads input i / scale, not i · in/out
            double scale = OpRules.floatAttr(scales[2]);
            attrs.put("scale_factor", scale);
            how = ", scale_factor=" + OpRules.number(scale);
        }
        if (t.present(n, 3) && (out[0] != in[0] || out[1] != in[1])) {
            return "Resize of the batch or channel axis";
        }
        attrs.put("mode", mode.equals("nearest") ? "nearest" : "bilinear");
        attrs.put("align_corners", alignCorners);
        return emit(n, "interpolate", attrs, how + args, x);
    }
}
