package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * PyTorch's export of the exact GELU ({@code F.gelu(x)}, opset 13-17 have no Gelu operator):
 * {@code Div(x, √2) → Erf → Add(·, 1) → Mul(x, ·) → Mul(·, 0.5)}, each inner result read by the next
 * node only. The import writes it as one {@code gelu(x)} at the last Mul and skips the four inner
 * nodes: one node in the graph, and √2 exact rather than the float32 the exporter wrote.
 */
final class GeluPattern {
    private static final double SQRT2 = Math.sqrt(2);

    /** The last Mul of each pattern: the name of its x. */
    private final Map<OnnxMl.NodeProto, String> last = new HashMap<>();
    private final Set<OnnxMl.NodeProto> inner = new HashSet<>();

    /**
     * Finds the patterns among {@code nodes}; {@code scalar} gives the value of a one-element constant
     * tensor (an initializer or a Constant node's output), or null.
     */
    GeluPattern(List<OnnxMl.NodeProto> nodes, Map<String, OnnxMl.NodeProto> producer, Set<String> graphOutputs,
                Function<String, Double> scalar) {
        Map<String, Integer> uses = new HashMap<>();
        for (OnnxMl.NodeProto n : nodes) {
            for (String i : n.getInputList()) {
                uses.merge(i, 1, Integer::sum);
            }
        }
        for (String o : graphOutputs) {
            uses.merge(o, 1, Integer::sum);
        }
        for (OnnxMl.NodeProto m1 : nodes) {
            if (!m1.getOpType().equals("Mul") || m1.getInputCount() != 2) {
                continue;
            }
            OnnxMl.NodeProto m0 = other(m1, producer, scalar, 0.5, "Mul", uses);
            if (m0 == null || m0.getInputCount() != 2) {
                continue;
            }
            for (int k = 0; k < 2; k++) {
                String x = m0.getInput(k);
                OnnxMl.NodeProto add = single(m0.getInput(1 - k), producer, "Add", uses);
                OnnxMl.NodeProto erf = add == null ? null : other(add, producer, scalar, 1.0, "Erf", uses);
                OnnxMl.NodeProto div = erf == null ? null : single(erf.getInput(0), producer, "Div", uses);
                if (div != null && div.getInputCount() == 2 && div.getInput(0).equals(x) && near(scalar.apply(div.getInput(1)), SQRT2)) {
                    last.put(m1, x);
                    inner.addAll(List.of(m0, add, erf, div));
                    break;
                }
            }
        }
    }

    /** Whether node {@code n} is inside a pattern (nothing is written for it). */
    boolean inner(OnnxMl.NodeProto n) {
        return inner.contains(n);
    }

    /** The x of the pattern {@code n} ends, or null. */
    String endsWith(OnnxMl.NodeProto n) {
        return last.get(n);
    }

    /** The node of type {@code op} making the input of binary {@code n} that is not the constant {@code c}, read only by n. */
    private static OnnxMl.NodeProto other(OnnxMl.NodeProto n, Map<String, OnnxMl.NodeProto> producer, Function<String, Double> scalar,
                                          double c, String op, Map<String, Integer> uses) {
        if (n.getInputCount() != 2) {
            return null;
        }
        for (int k = 0; k < 2; k++) {
            Double v = scalar.apply(n.getInput(k));
            if (v != null && v == c) {
                return single(n.getInput(1 - k), producer, op, uses);
            }
        }
        return null;
    }

    /** The node of type {@code op} that makes {@code value}, when value is read once; else null. */
    private static OnnxMl.NodeProto single(String value, Map<String, OnnxMl.NodeProto> producer, String op, Map<String, Integer> uses) {
        OnnxMl.NodeProto p = producer.get(value);
        return p != null && p.getOpType().equals(op) && uses.getOrDefault(value, 0) == 1 && p.getOutputCount() == 1 ? p : null;
    }

    private static boolean near(Double v, double want) {
        return v != null && Math.abs(v - want) < 1e-6;
    }
}
