package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A node's attributes by name, with ONNX's defaults given by the caller. */
final class Attrs {
    private final Map<String, OnnxMl.AttributeProto> byName = new HashMap<>();

    Attrs(OnnxMl.NodeProto node) {
        for (OnnxMl.AttributeProto a : node.getAttributeList()) {
            byName.put(a.getName(), a);
        }
    }

    boolean has(String name) {
        return byName.containsKey(name);
    }

    long i(String name, long dflt) {
        OnnxMl.AttributeProto a = byName.get(name);
        return a == null ? dflt : a.getI();
    }

    double f(String name, double dflt) {
        OnnxMl.AttributeProto a = byName.get(name);
        return a == null ? dflt : a.getF();
    }

    String s(String name, String dflt) {
        OnnxMl.AttributeProto a = byName.get(name);
        return a == null ? dflt : a.getS().toStringUtf8();
    }

    /** An ints attribute, or null when absent. */
    int[] ints(String name) {
        OnnxMl.AttributeProto a = byName.get(name);
        if (a == null) {
            return null;
        }
        List<Long> v = a.getIntsList();
        int[] out = new int[v.size()];
        for (int k = 0; k < out.length; k++) {
            long x = v.get(k);
            out[k] = x > Integer.MAX_VALUE ? Integer.MAX_VALUE : x < Integer.MIN_VALUE ? Integer.MIN_VALUE : (int) x;
        }
        return out;
    }

    double[] floats(String name) {
        OnnxMl.AttributeProto a = byName.get(name);
        if (a == null) {
            return null;
        }
        double[] out = new double[a.getFloatsCount()];
        for (int k = 0; k < out.length; k++) {
            out[k] = a.getFloats(k);
        }
        return out;
    }

    OnnxMl.TensorProto t(String name) {
        OnnxMl.AttributeProto a = byName.get(name);
        return a == null || !a.hasT() ? null : a.getT();
    }
}
