package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.onnx.Translator.Missing;
import io.gradscope.engine.onnx.Translator.Tensor;
import io.gradscope.engine.onnx.Translator.Val;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The nodes an import refuses: each noted as the graph is read (an operator the import does not
 * know, or a case of one it does not support), the nodes after them checked with stand-ins where
 * they can be (Note [Chained refusals]), and all of them reported in one error at the end, every
 * node by name, grouped by what was refused.
 */
final class Refusals {
    private record Unsupported(String what, String node) {
    }

    private final Translator t;
    private final List<Unsupported> unsupported = new ArrayList<>();
    /** Nodes of known operators not checked: they read a refused node's output, whose shape is unknown. */
    int unchecked;

    Refusals(Translator t) {
        this.t = t;
    }

    /** Notes every node of an op type the import does not know (reported with the rest after the translation). */
    void checkOperators(OnnxMl.GraphProto graph) {
        for (OnnxMl.NodeProto n : graph.getNodeList()) {
            if (!known(n)) {
                String domain = n.getDomain();
                note(n, domain.isEmpty() || domain.equals("ai.onnx") ? n.getOpType() : n.getOpType() + " (domain " + domain + ")");
            }
        }
    }

    static boolean known(OnnxMl.NodeProto n) {
        String domain = n.getDomain();
        return (domain.isEmpty() || domain.equals("ai.onnx")) && OpRules.SUPPORTED.contains(n.getOpType());
    }

    void note(OnnxMl.NodeProto n, String what) {
        unsupported.add(new Unsupported(what, n.getName().isEmpty() ? "(unnamed " + n.getOpType() + ")" : n.getName()));
    }

    void report() {
        if (unsupported.isEmpty()) {
            return;
        }
        Map<String, List<String>> byKind = new LinkedHashMap<>();
        for (Unsupported u : unsupported) {
            byKind.computeIfAbsent(u.what(), k -> new ArrayList<>()).add(u.node());
        }
        // Every node by name, however many (the README promises each one).
        String list = byKind.entrySet().stream().map(e -> e.getKey() + " ×" + e.getValue().size() + " (" + String.join(", ", e.getValue()) + ")")
                .collect(Collectors.joining("; "));
        String after = unchecked == 0 ? "" : "; " + unchecked + " node" + (unchecked == 1 ? "" : "s")
                + " after them, reading what they give, not checked";
        throw t.error("cannot import: " + unsupported.size() + " node" + (unsupported.size() == 1 ? "" : "s")
                + " the import does not support: " + list + after);
    }

    /** Node n was refused (the last report is its own): its outputs carry the refusal's kind and a stand-in shape. */
    void refused(OnnxMl.NodeProto n, Val[] in) {
        Tensor first = null;
        for (Val v : in) {
            if (v instanceof Tensor t) {
                first = t;
                break;
            }
        }
        Missing m = first == null ? Missing.UNKNOWN : new Missing(unsupported.get(unsupported.size() - 1).what(), first.shape(), first.isInt());
        for (int i = 0; i < n.getOutputCount(); i++) {
            t.set(n, i, m);
        }
    }

    /**
     * Note [Chained refusals]: a node that reads a refused node's output has no input shape to be
     * written with, so it was never checked, and two chained Slices with a step counted as one node.
     * Such a node is checked with stand-ins (each missing input the shape of its refused node's first
     * input: right for elementwise refusals, a guess otherwise): a refusal of the kind its input's
     * node had is reported, any other outcome (written, refused otherwise, an error from the
     * guessed shape) only counted as not checked. The program text is never used: the import fails.
     */
    void readsRefused(OnnxMl.NodeProto n, Val[] in) {
        Val[] stand = in.clone();
        Set<String> kinds = new java.util.HashSet<>();
        boolean guessed = true;
        for (int i = 0; i < in.length; i++) {
            if (in[i] instanceof Missing m) {
                guessed &= m.guess() != null;
                kinds.add(m.kind());
                stand[i] = m.guess() == null ? null : new Tensor("refused_", m.guess(), m.isInt());
            }
        }
        int before = unsupported.size();
        if (guessed) {
            // the rules read their inputs by name: the stand-ins take the missing values' place while they run
            Map<String, Val> saved = new HashMap<>();
            for (int i = 0; i < in.length; i++) {
                if (in[i] instanceof Missing) {
                    saved.put(n.getInput(i), in[i]);
                    t.values.put(n.getInput(i), stand[i]);
                }
            }
            try {
                if (!t.rules.apply(n, new Attrs(n), stand) && unsupported.size() == before + 1
                        && kinds.contains(unsupported.get(before).what())) {
                    t.values.putAll(saved);
                    refused(n, stand);
                    return;
                }
            } catch (RuntimeException e) {
                // an error the guessed shape gives says nothing about the node: not checked
            } finally {
                t.values.putAll(saved);
            }
        }
        while (unsupported.size() > before) {
            unsupported.remove(unsupported.size() - 1);
        }
        unchecked++;
        t.missing(n);
    }
}
