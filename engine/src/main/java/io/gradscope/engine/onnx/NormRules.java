package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.onnx.Translator.LeafKind;
import io.gradscope.engine.onnx.Translator.Tensor;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Normalisation, global pooling, softmax and reductions: BatchNormalization (inference form),
 * LayerNormalization, GlobalAverage/MaxPool, Softmax, LogSoftmax, ReduceMean/Sum/Max.
 */
final class NormRules {
    private final OpRules r;
    private final Translator t;

    NormRules(OpRules r) {
        this.r = r;
        this.t = r.translator();
    }


    String globalPool(OnnxMl.NodeProto n, boolean max) {
        Tensor x = r.floatTensor(n, 0);
        if (x.rank() < 3) {
            return n.getOpType() + " of a tensor of rank " + x.rank();
        }
        int[] axes = new int[x.rank() - 2];
        int[] shape = x.shape();
        for (int i = 0; i < axes.length; i++) {
            axes[i] = i + 2;
            shape[i + 2] = 1;
        }
        t.emit(n, 0, (max ? "amax(" : "mean(") + x.name() + ", axis=" + OpRules.tuple(axes) + ", keepdim=True)", shape, false);
        return null;
    }

    /**
     * BatchNormalization: inference (the running statistics), or training mode (opset 14+'s
     * training_mode=1; before, the running-statistics outputs ask for it) as batch_norm(training=True),
     * the batch's own statistics, where nothing reads the updated running statistics.
     */
    String batchNorm(OnnxMl.NodeProto n, Attrs at) {
        boolean extra = false;
        for (int i = 1; i < n.getOutputCount(); i++) {
            extra |= !n.getOutput(i).isEmpty();
        }
        boolean training = at.i("training_mode", 0) != 0 || (t.opset < 14 && extra);
        for (int i = 1; i < n.getOutputCount(); i++) {
            if (!n.getOutput(i).isEmpty() && (!training || t.isRead(n.getOutput(i)))) {
                return "BatchNormalization with its running-statistics outputs read";
            }
        }
        Tensor x = r.floatTensor(n, 0);
        Tensor scale = r.floatTensor(n, 1);
        Tensor bias = r.floatTensor(n, 2);
        Tensor mean = r.floatTensor(n, 3, LeafKind.CONSTANT);
        Tensor var = r.floatTensor(n, 4, LeafKind.CONSTANT);
        double eps = OpRules.floatAttr(at.f("epsilon", 1e-5));
        Map<String, Object> attrs = Map.of("eps", eps, "training", training);
        int[] shape = r.shape(n, "batch_norm", attrs, x, mean, var, scale, bias);
        t.emit(n, 0, "batch_norm(" + x.name() + ", " + mean.name() + ", " + var.name() + ", " + scale.name() + ", " + bias.name()
                + ", eps=" + OpRules.number(eps) + (training ? ", training=True" : "") + ")", shape, false);
        return null;
    }

    String layerNorm(OnnxMl.NodeProto n, Attrs at) {
        for (int i = 1; i < n.getOutputCount(); i++) {
            if (!n.getOutput(i).isEmpty()) {
                return "LayerNormalization with its mean and inverse standard deviation outputs";
            }
        }
        Tensor x = r.floatTensor(n, 0);
        if (OpRules.axis((int) at.i("axis", -1), x.rank()) != x.rank() - 1) {
            return "LayerNormalization over more than the last axis";
        }
        Tensor scale = r.floatTensor(n, 1);
        int d = x.shape()[x.rank() - 1];
        Tensor bias = t.present(n, 2) ? r.floatTensor(n, 2) : t.constant("ln_zero_bias", Const.of(new int[] {d}, new double[d], Const.FLOAT));
        double eps = OpRules.floatAttr(at.f("epsilon", 1e-5));
        int[] shape = r.shape(n, "layer_norm", Map.of("eps", eps), x, scale, bias);
        t.emit(n, 0, "layer_norm(" + x.name() + ", " + scale.name() + ", " + bias.name() + ", eps=" + OpRules.number(eps) + ")", shape, false);
        return null;
    }

    String softmax(OnnxMl.NodeProto n, Attrs at, String fn) {
        Tensor x = r.floatTensor(n, 0);
        int a = (int) at.i("axis", t.opset >= 13 ? -1 : 1);
        if (t.opset < 13 && OpRules.axis(a, x.rank()) != x.rank() - 1) {
            return n.getOpType() + " (opset " + t.opset + ") over the flattened trailing axes";
        }
        t.emit(n, 0, fn + "(" + x.name() + ", axis=" + a + ")", x.shape(), false);
        return null;
    }

    String reduce(OnnxMl.NodeProto n, Attrs at, String op) {
        Tensor x = r.floatTensor(n, 0);
        int[] axes = at.ints("axes");
        if (axes == null && t.present(n, 1)) {
            axes = Arrays.stream(r.knownInts(n, 1, "axes")).mapToInt(v -> (int) v).toArray();
        }
        boolean keep = at.i("keepdims", 1) != 0;
        if (axes == null || axes.length == 0) {
            if (at.i("noop_with_empty_axes", 0) != 0) {
                return r.alias(n);
            }
            axes = null;
        }
        String fn = switch (op) {
            case "ReduceMean" -> "mean";
            case "ReduceSum" -> "sum";
            default -> "amax";
        };
        Map<String, Object> attrs = new HashMap<>();
        attrs.put("axis", axes);
        attrs.put("keepdim", keep);
        int[] shape = r.shape(n, fn, attrs, x);
        String args = (axes == null ? "" : ", axis=" + OpRules.tuple(axes)) + (keep ? ", keepdim=True" : "");
        t.emit(n, 0, fn + "(" + x.name() + args + ")", shape, false);
        return null;
    }
}
