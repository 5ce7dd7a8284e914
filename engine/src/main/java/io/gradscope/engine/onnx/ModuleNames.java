package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Names for the initializers the exporter numbered ({@code onnx::Conv_193}: a batch norm folded into its
 * convolution, a weight transposed for a MatMul), taken from the PyTorch module that reads them, as the
 * reading node's name reveals it, and the input's part in that node: {@code /layer1/layer1.0/conv1/Conv}
 * reading {@code onnx::Conv_193} as its weight gives {@code layer1_0_conv1_weight}. The first node in
 * the graph that reads an initializer names it; an initializer read by no module, or only as an input
 * with no plain part (a shape, a scalar), keeps the exporter's name. Initializers the exporter named by
 * the module path already ({@code layer1.0.conv1.weight}) are not renamed here.
 *
 * <pre>{@code
 * Map<String, String> names = ModuleNames.of(graph, initializers);
 * names.get("onnx::Conv_193"); // "conv1_weight"
 * }</pre>
 */
final class ModuleNames {
    private ModuleNames() {
    }

    /** Each numbered initializer the graph's modules name: ONNX name to a program name's base. */
    static Map<String, String> of(OnnxMl.GraphProto graph, Map<String, Const> initializers) {
        Map<String, String> names = new HashMap<>();
        for (OnnxMl.NodeProto n : graph.getNodeList()) {
            List<String> groups = groupsOf(modules(n.getName()));
            for (int i = 0; i < n.getInputCount(); i++) {
                String in = n.getInput(i);
                Const c = initializers.get(in);
                if (c == null || !in.startsWith("onnx::") || names.containsKey(in)) {
                    continue;
                }
                String part = part(n.getOpType(), i, c.shape().length);
                // The first reader names it, or, reading it as no part, leaves it to the exporter's name.
                names.put(in, part == null || groups.isEmpty() ? null : String.join("_", groups) + "_" + part);
            }
        }
        names.values().removeIf(java.util.Objects::isNull);
        return names;
    }

    private static final Set<String> CONV = Set.of("Conv", "ConvTranspose", "Gemm");
    private static final Set<String> NORM = Set.of("LayerNormalization", "InstanceNormalization", "GroupNormalization");

    /** What input {@code i} (of rank {@code rank}) is to an {@code op} node, in PyTorch's words; null for no plain part. */
    static String part(String op, int i, int rank) {
        if (CONV.contains(op) || NORM.contains(op)) {
            return i == 1 ? "weight" : i == 2 ? "bias" : null;
        }
        return switch (op) {
            case "MatMul" -> rank >= 2 ? "weight" : null;
            case "BatchNormalization" -> i >= 1 && i <= 4 ? List.of("weight", "bias", "running_mean", "running_var").get(i - 1) : null;
            case "Add" -> rank == 1 ? "bias" : null;
            case "Gather" -> i == 0 && rank == 2 ? "weight" : null;
            case "PRelu" -> i == 1 ? "weight" : null;
            case "LSTM", "GRU", "RNN" -> i >= 1 && i <= 3 ? List.of("weight_ih", "weight_hh", "bias").get(i - 1) : null;
            default -> null;
        };
    }

    /** The module path of a node name: {@code /layer1/layer1.0/conv1/Conv -> [layer1, layer1.0, conv1]}. */
    static List<String> modules(String nodeName) {
        List<String> parts = new ArrayList<>();
        for (String p : nodeName.split("/")) {
            if (!p.isEmpty()) {
                parts.add(p);
            }
        }
        return parts.isEmpty() ? parts : parts.subList(0, parts.size() - 1);
    }

    /** Group names for the module path: a child repeating its parent's name drops it ({@code layer1.0 -> 0}). */
    static List<String> groupsOf(List<String> mods) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < mods.size(); i++) {
            String m = mods.get(i);
            if (i > 0 && m.startsWith(mods.get(i - 1) + ".")) {
                m = m.substring(mods.get(i - 1).length() + 1);
            }
            out.add(m);
        }
        return out;
    }
}
