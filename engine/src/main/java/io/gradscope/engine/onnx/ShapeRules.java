package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.onnx.Translator.Known;
import io.gradscope.engine.onnx.Translator.LeafKind;
import io.gradscope.engine.onnx.Translator.Tensor;
import io.gradscope.engine.onnx.Translator.Val;
import io.gradscope.engine.tensor.Shapes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Shapes and views: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Expand, Concat, Split, Slice,
 * Gather (an embedding, a range or a few picked slices) and Pad.
 */
final class ShapeRules {
    private final OpRules r;
    private final Translator t;

    ShapeRules(OpRules r) {
        this.r = r;
        this.t = r.translator();
    }


    /** Output 0 is x reshaped to {@code target} (x itself when equal). */
    String reshapeTo(OnnxMl.NodeProto n, Tensor x, int[] target) {
        reshapeTo(n, 0, x.name(), x.shape(), target);
        return null;
    }

    private void reshapeTo(OnnxMl.NodeProto n, int k, String expr, int[] from, int[] target) {
        if (Arrays.equals(from, target) && expr.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            t.alias(n, k, new Tensor(expr, target, false));
            return;
        }
        String e = Arrays.equals(from, target) ? expr : target.length == 0 ? "sum(" + expr + ")"
                : "reshape(" + expr + ", " + ProgramText.dimsText(target, false) + ")";
        t.emit(n, k, e, target, false);
    }

    String reshape(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        int[] target = ConstantFolder.reshapeTarget(x.shape(), r.knownInts(n, 1, "shape"), at.i("allowzero", 0) != 0);
        if (target == null) {
            return "Reshape of " + Shapes.str(x.shape()) + " to " + Arrays.toString(r.knownInts(n, 1, "shape"));
        }
        return reshapeTo(n, x, target);
    }

    String squeeze(OnnxMl.NodeProto n, Attrs at, boolean unsqueeze) {
        Tensor x = r.floatTensor(n, 0);
        int[] axes = at.ints("axes");
        if (axes == null && t.present(n, 1)) {
            axes = Arrays.stream(r.knownInts(n, 1, "axes")).mapToInt(v -> (int) v).toArray();
        }
        if (unsqueeze && axes == null) {
            return "Unsqueeze without axes";
        }
        return reshapeTo(n, x, unsqueeze ? ConstantFolder.unsqueezed(x.shape(), axes) : ConstantFolder.squeezed(x.shape(), axes));
    }

    String transpose(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        int r = x.rank();
        int[] perm = at.ints("perm");
        if (perm == null) {
            perm = new int[r];
            for (int i = 0; i < r; i++) {
                perm[i] = r - 1 - i;
            }
        }
        boolean identity = true;
        int[] shape = new int[r];
        for (int i = 0; i < r; i++) {
            identity &= OpRules.axis(perm[i], r) == i;
            shape[i] = x.shape()[OpRules.axis(perm[i], r)];
        }
        if (identity) {
            t.alias(n, 0, x);
            return null;
        }
        t.emit(n, 0, "permute(" + x.name() + ", " + Arrays.stream(perm).mapToObj(Integer::toString).collect(Collectors.joining(", "))
                + ")", shape, false);
        return null;
    }

    String expand(OnnxMl.NodeProto n) {
        Tensor x = r.floatTensor(n, 0);
        int[] target;
        try {
            target = Shapes.broadcast("Expand", x.shape(), Arrays.stream(r.knownInts(n, 1, "shape")).mapToInt(v -> (int) v).toArray());
        } catch (GradscopeException e) {
            return "Expand (" + e.getMessage() + ")";
        }
        if (Arrays.equals(target, x.shape())) {
            t.alias(n, 0, x);
            return null;
        }
        t.emit(n, 0, "broadcast_to(" + x.name() + ", " + ProgramText.dimsText(target, false) + ")", target, false);
        return null;
    }

    String concat(OnnxMl.NodeProto n, Attrs at) {
        List<Tensor> xs = new ArrayList<>();
        for (int i = 0; i < n.getInputCount(); i++) {
            if (t.present(n, i)) {
                xs.add(r.floatTensor(n, i));
            }
        }
        int a = (int) at.i("axis", 0);
        int[] shape = r.shape(n, "concat", Map.of("axis", a), xs.toArray(new Tensor[0]));
        t.emit(n, 0, "concat(" + xs.stream().map(Tensor::name).collect(Collectors.joining(", ")) + ", axis=" + a + ")", shape, false);
        return null;
    }

    String split(OnnxMl.NodeProto n, Attrs at) {
        Tensor x = r.floatTensor(n, 0);
        int a = OpRules.axis((int) at.i("axis", 0), x.rank());
        int dim = x.shape()[a];
        int outs = n.getOutputCount();
        long[] sizes;
        if (t.present(n, 1)) {
            sizes = r.knownInts(n, 1, "split");
        } else if (at.ints("split") != null) {
            sizes = Arrays.stream(at.ints("split")).asLongStream().toArray();
        } else {
            sizes = new long[outs];
            long each = (dim + outs - 1) / outs;
            for (int i = 0; i < outs; i++) {
                sizes[i] = Math.min(each, Math.max(0, dim - i * each));
            }
        }
        int start = 0;
        for (int k = 0; k < outs && k < sizes.length; k++) {
            int stop = (int) (start + sizes[k]);
            int[] shape = x.shape();
            shape[a] = stop - start;
            if (!n.getOutput(k).isEmpty()) {
                if (start == 0 && stop == dim) {
                    t.alias(n, k, x);
                } else {
                    t.emit(n, k, "slice(" + x.name() + ", " + a + ", " + start + ", " + stop + ")", shape, false);
                }
            }
            start = stop;
        }
        return null;
    }

    String slice(OnnxMl.NodeProto n) {
        Tensor x = r.floatTensor(n, 0);
        long[] starts = r.knownInts(n, 1, "start");
        long[] ends = r.knownInts(n, 2, "end");
        long[] axes = t.present(n, 3) ? r.knownInts(n, 3, "axes") : null;
        long[] steps = t.present(n, 4) ? r.knownInts(n, 4, "steps") : null;
        String expr = x.name();
        int[] shape = x.shape();
        for (int k = 0; k < starts.length; k++) {
            int a = axes == null ? k : OpRules.axis((int) axes[k], x.rank());
            long step = steps == null ? 1 : steps[k];
            int[] r = ConstantFolder.sliceRange(shape[a], starts[k], ends[k], step);
            if (step < 1) {
                return "Slice with step " + step;
            }
            int stop = Math.max(r[0], r[1]);
            if (r[0] == 0 && stop == shape[a] && step == 1) {
                continue;
            }
            expr = "slice(" + expr + ", " + a + ", " + r[0] + ", " + stop + (step == 1 ? "" : ", step=" + step) + ")";
            shape[a] = (int) ((stop - r[0] + step - 1) / step);
        }
        reshapeTo(n, 0, expr, shape, shape);
        return null;
    }

    String gather(OnnxMl.NodeProto n, Attrs at) {
        Val data = t.value(n, 0);
        if (data instanceof Tensor d && d.isInt()) {
            return "Gather from an integer tensor";
        }
        int[] ds = data instanceof Tensor d ? d.shape() : ((Known) data).c().shape();
        int a = OpRules.axis((int) at.i("axis", 0), ds.length);
        Const idx = t.known(n, 1);
        if (idx == null) {
            if ((a != 0 || ds.length != 2) && t.value(n, 1) instanceof Tensor list && list.isInt() && list.rank() == 1) {
                Tensor x = r.floatTensor(n, 0);
                int[] shape = r.shape(n, "index_select", Map.of("axis", a), x, list);
                t.emit(n, 0, "index_select(" + x.name() + ", " + list.name() + ", axis=" + a + ")", shape, false);
                return null;
            }
            if (a != 0 || ds.length != 2) {
                return "Gather with computed indices other than a list or rows of a matrix (an embedding)";
            }
            Tensor w = r.floatTensor(n, 0);
            Tensor ids = t.tensor(n, 1, LeafKind.CONSTANT);
            int[] shape = r.shape(n, "embedding", Map.of(), ids, w);
            t.emit(n, 0, "embedding(" + ids.name() + ", " + w.name() + ")", shape, false);
            return null;
        }
        int[] ids = idx.ints();
        for (int i = 0; i < ids.length; i++) {
            ids[i] = ids[i] < 0 ? ids[i] + ds[a] : ids[i];
            if (ids[i] < 0 || ids[i] >= ds[a]) {
                return "Gather with the index " + idx.ints()[i] + " out of range for " + ds[a];
            }
        }
        Tensor x = r.floatTensor(n, 0);
        int[] out = new int[ds.length - 1 + idx.shape().length];
        System.arraycopy(ds, 0, out, 0, a);
        System.arraycopy(idx.shape(), 0, out, a, idx.shape().length);
        System.arraycopy(ds, a + 1, out, a + idx.shape().length, ds.length - a - 1);
        boolean range = ids.length > 0;
        for (int i = 1; i < ids.length; i++) {
            range &= ids[i] == ids[0] + i;
        }
        if (range && idx.shape().length <= 1) {
            int[] sliced = ds.clone();
            sliced[a] = ids.length;
            String expr = ids[0] == 0 && ids.length == ds[a] ? x.name() : "slice(" + x.name() + ", " + a + ", " + ids[0] + ", "
                    + (ids[0] + ids.length) + ")";
            reshapeTo(n, 0, expr, sliced, out);
            return null;
        }
        if (a == 0 && ds.length == 2) {
            Tensor ids2 = t.constant("indices", Const.of(idx.shape(), Arrays.stream(ids).asDoubleStream().toArray(), Const.INT64));
            t.emit(n, 0, "embedding(" + ids2.name() + ", " + x.name() + ")", out, false);
            return null;
        }
        if (idx.shape().length == 1) {
            Tensor list = t.constant("indices", Const.of(idx.shape(), Arrays.stream(ids).asDoubleStream().toArray(), Const.INT64));
            t.emit(n, 0, "index_select(" + x.name() + ", " + list.name() + ", axis=" + a + ")", out, false);
            return null;
        }
        return "Gather of " + idx.shape().length + "-D scattered indices along axis " + a;
    }

    String pad(OnnxMl.NodeProto n, Attrs at) {
        String onnxMode = at.s("mode", "constant");
        String mode = switch (onnxMode) {
            case "constant" -> "constant";
            case "reflect" -> "reflect";
            case "edge" -> "replicate";
            default -> null;
        };
        if (mode == null) {
            return "Pad in " + onnxMode + " mode";
        }
        Tensor x = r.floatTensor(n, 0);
        long[] pads = at.ints("pads") != null ? Arrays.stream(at.ints("pads")).asLongStream().toArray() : r.knownInts(n, 1, "pads");
        Const known = t.known(n, 2);
        if (t.present(n, 2) && known == null) {
            return "Pad with a computed value";
        }
        double value = t.present(n, 2) ? known.data()[0] : at.f("value", 0);
        String valueText = OpRules.number(OpRules.floatAttr(value));
        if (valueText == null) {
            return "Pad with the value " + value;
        }
        String extra = (mode.equals("constant") ? "" : ", mode=\"" + mode + "\"") + (value != 0 && mode.equals("constant") ? ", value="
                + valueText : "");
        if (t.present(n, 3)) {
            return "Pad of some axes only";
        }
        int r = x.rank();
        if (pads.length != 2 * r) {
            return "Pad with " + pads.length + " pads for rank " + r;
        }
        String expr = x.name();
        int[] shape = x.shape();
        for (int a = 0; a < r; a++) {
            long before = pads[a];
            long after = pads[a + r];
            if (before < 0 || after < 0) {
                return "Pad with negative pads";
            }
            if (before != 0 || after != 0) {
                expr = "pad(" + expr + ", " + a + ", " + before + ", " + after + extra + ")";
                shape[a] += (int) (before + after);
            }
        }
        reshapeTo(n, 0, expr, shape, shape);
        return null;
    }
}
