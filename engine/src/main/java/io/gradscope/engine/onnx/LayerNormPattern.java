package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import io.gradscope.engine.onnx.Translator.LeafKind;
import io.gradscope.engine.onnx.Translator.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * PyTorch's export of {@code nn.LayerNorm} below opset 17 (which has no LayerNormalization):
 * {@code m = ReduceMean(x); d = Sub(x, m); v = ReduceMean(Pow(d, 2)); y = Div(d, Sqrt(Add(v, eps)))},
 * then {@code Mul(y, weight)} and {@code Add(·, bias)} when the norm has them. The import writes the
 * chain as one {@code layer_norm(x, weight, bias, eps=...)} at its last node and skips the others: one
 * node in the graph instead of nine, and the engine's one-pass kernel. Each inner result must be read
 * by the chain only ({@code d} by its Pow and Div, the others once), the exponent must be 2, and both
 * ReduceMeans must keep their dimension; whether they reduce the last axis only, and whether weight and
 * bias hold one value per element of it, is known only when the node is written: otherwise the chain's
 * nodes (or its Mul and Add) are written one by one as usual ({@link #release}).
 */
final class LayerNormPattern {
    /** One chain: x, eps, weight and bias (null when absent), its nodes in graph order (the last one ends it). */
    record Chain(String x, double eps, String weight, String bias, List<OnnxMl.NodeProto> nodes) {
        OnnxMl.NodeProto end() {
            return nodes.get(nodes.size() - 1);
        }
    }

    /** The nodes up to the Div. */
    static final int CORE = 7;

    private final Map<OnnxMl.NodeProto, Chain> last = new HashMap<>();
    private final Set<OnnxMl.NodeProto> inner = new HashSet<>();
    private final Map<String, OnnxMl.NodeProto> producer;
    private final Map<String, Integer> uses = new HashMap<>();

    /**
     * Finds the chains among {@code nodes}; {@code scalar} gives the value of a one-element constant
     * tensor (an initializer or a Constant node's output), or null.
     */
    LayerNormPattern(List<OnnxMl.NodeProto> nodes, Map<String, OnnxMl.NodeProto> producer, Set<String> graphOutputs,
                     Function<String, Double> scalar) {
        this.producer = producer;
        for (OnnxMl.NodeProto n : nodes) {
            for (String i : n.getInputList()) {
                uses.merge(i, 1, Integer::sum);
            }
        }
        for (String o : graphOutputs) {
            uses.merge(o, 1, Integer::sum);
        }
        Map<String, List<OnnxMl.NodeProto>> readers = new HashMap<>();
        for (OnnxMl.NodeProto n : nodes) {
            for (String i : n.getInputList()) {
                readers.computeIfAbsent(i, k -> new ArrayList<>()).add(n);
            }
        }
        for (OnnxMl.NodeProto div : nodes) {
            Chain c = div.getOpType().equals("Div") ? core(div, scalar) : null;
            if (c == null) {
                continue;
            }
            List<OnnxMl.NodeProto> chain = new ArrayList<>(c.nodes());
            String weight = null;
            String bias = null;
            OnnxMl.NodeProto mul = reader(div, "Mul", readers);
            if (mul != null && mul.getInputCount() == 2) {
                weight = mul.getInput(mul.getInput(0).equals(div.getOutput(0)) ? 1 : 0);
                chain.add(mul);
                OnnxMl.NodeProto add = reader(mul, "Add", readers);
                if (add != null && add.getInputCount() == 2) {
                    bias = add.getInput(add.getInput(0).equals(mul.getOutput(0)) ? 1 : 0);
                    chain.add(add);
                }
            }
            Chain found = new Chain(c.x(), c.eps(), weight, bias, chain);
            last.put(found.end(), found);
            inner.addAll(chain.subList(0, chain.size() - 1));
        }
    }

    /** The chain up to its Div, or null. */
    private Chain core(OnnxMl.NodeProto div, Function<String, Double> scalar) {
        if (div.getInputCount() != 2) {
            return null;
        }
        OnnxMl.NodeProto sub = producer.get(div.getInput(0));
        OnnxMl.NodeProto sqrt = single(div.getInput(1), "Sqrt");
        OnnxMl.NodeProto add = sqrt == null ? null : single(sqrt.getInput(0), "Add");
        if (sub == null || !sub.getOpType().equals("Sub") || sub.getInputCount() != 2 || add == null || add.getInputCount() != 2
                || uses.getOrDefault(div.getInput(0), 0) != 2 || sub.getOutputCount() != 1) {
            return null;
        }
        String x = sub.getInput(0);
        OnnxMl.NodeProto mean = single(sub.getInput(1), "ReduceMean");
        if (mean == null || !mean.getInput(0).equals(x) || !lastAxisKept(mean)) {
            return null;
        }
        for (int k = 0; k < 2; k++) {
            Double eps = scalar.apply(add.getInput(k));
            OnnxMl.NodeProto var = eps == null ? null : single(add.getInput(1 - k), "ReduceMean");
            OnnxMl.NodeProto pow = var == null || !lastAxisKept(var) ? null : single(var.getInput(0), "Pow");
            if (pow != null && pow.getInputCount() == 2 && pow.getInput(0).equals(sub.getOutput(0))
                    && Double.valueOf(2.0).equals(scalar.apply(pow.getInput(1)))) {
                return new Chain(x, eps, null, null, List.of(mean, sub, pow, var, add, sqrt, div));
            }
        }
        return null;
    }

    /** A ReduceMean over one axis given as an attribute, keeping it (whether it is the last axis is checked later). */
    private static boolean lastAxisKept(OnnxMl.NodeProto mean) {
        Attrs at = new Attrs(mean);
        int[] axes = at.ints("axes");
        return mean.getInputCount() == 1 && axes != null && axes.length == 1 && at.i("keepdims", 1) != 0;
    }

    /** The one node, of type {@code op}, reading the output of {@code n}, when nothing else reads it; else null. */
    private OnnxMl.NodeProto reader(OnnxMl.NodeProto n, String op, Map<String, List<OnnxMl.NodeProto>> readers) {
        String out = n.getOutput(0);
        List<OnnxMl.NodeProto> rs = readers.getOrDefault(out, List.of());
        if (uses.getOrDefault(out, 0) != 1 || rs.size() != 1 || !rs.get(0).getOpType().equals(op) || rs.get(0).getOutputCount() != 1
                || rs.get(0).getInputCount() != 2) {
            return null;
        }
        OnnxMl.NodeProto r = rs.get(0);
        return r.getInput(0).equals(out) != r.getInput(1).equals(out) ? r : null;
    }

    /** The node of type {@code op} that makes {@code value}, when value is read once; else null. */
    private OnnxMl.NodeProto single(String value, String op) {
        OnnxMl.NodeProto p = producer.get(value);
        return p != null && p.getOpType().equals(op) && uses.getOrDefault(value, 0) == 1 && p.getOutputCount() == 1 ? p : null;
    }

    /** Whether node {@code n} is inside a chain (nothing is written for it). */
    boolean inner(OnnxMl.NodeProto n) {
        return inner.contains(n);
    }

    /** The chain {@code n} ends, or null. */
    Chain endsWith(OnnxMl.NodeProto n) {
        return last.get(n);
    }

    /** Makes the chain's nodes ordinary ones again, to be written one by one. */
    void release(Chain c) {
        c.nodes().forEach(inner::remove);
        last.remove(c.end());
    }

    /**
     * Writes the chain as one layer_norm; returns how many of its nodes that is: all of them, or the
     * seven up to its Div (with a weight of ones and a zero bias) when the Mul's or Add's other operand
     * is not a vector of the last dimension's size, or 0 (writing nothing) when x is not a computed float
     * tensor or the means are not over its last axis. The caller writes the nodes after those one by one.
     */
    static int write(Translator t, Chain c) {
        if (!(t.valueOf(c.x()) instanceof Tensor x) || x.isInt() || x.rank() < 1) {
            return 0;
        }
        int d = x.shape()[x.rank() - 1];
        for (OnnxMl.NodeProto n : c.nodes()) {
            if (n.getOpType().equals("ReduceMean") && OpRules.axis(new Attrs(n).ints("axes")[0], x.rank()) != x.rank() - 1) {
                return 0;
            }
        }
        boolean affine = true;
        for (String p : new String[] {c.weight(), c.bias()}) {
            int[] s = p == null ? new int[] {d} : t.shapeOf(p);
            affine &= s != null && Arrays.equals(s, new int[] {d});
        }
        String w = affine && c.weight() != null ? t.tensor(c.weight(), LeafKind.PARAM).name()
                : t.constant("ln_ones", Const.of(new int[] {d}, ones(d), Const.FLOAT)).name();
        String b = affine && c.bias() != null ? t.tensor(c.bias(), LeafKind.PARAM).name()
                : t.constant("ln_zero_bias", Const.of(new int[] {d}, new double[d], Const.FLOAT)).name();
        int written = affine ? c.nodes().size() : CORE;
        // eps as the float32 the exporter wrote, read back as its shortest decimal (9.99999975e-6 -> 1e-5),
        // as LayerNormalization's attribute is: the value nn.LayerNorm was given.
        t.emit(c.nodes().get(written - 1), 0, "layer_norm(" + x.name() + ", " + w + ", " + b + ", eps="
                + OpRules.number(OpRules.floatAttr(c.eps())) + ")", x.shape(), false);
        return written;
    }

    private static double[] ones(int d) {
        double[] v = new double[d];
        Arrays.fill(v, 1);
        return v;
    }
}
