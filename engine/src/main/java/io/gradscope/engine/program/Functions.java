package io.gradscope.engine.program;

import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpRegistry;
import io.gradscope.engine.program.Value.TensorVal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The functions of the program format: each call's arguments become an op of the table and its tensor inputs. */
final class Functions {
    private Functions() {
    }

    /** An op and the tensors it is applied to. */
    record OpCall(Op op, List<TensorVal> inputs) {
    }

    static final Set<String> LEAVES = Set.of("input", "param", "labels");
    static final Set<String> UNARY = Set.of("relu", "sigmoid", "tanh", "exp", "log", "sqrt", "abs", "sin", "cos", "gelu",
            "softplus");
    static final Set<String> OTHERS = Set.of("sum", "mean", "amax", "logsumexp", "softmax", "log_softmax", "reshape",
            "transpose", "permute", "slice", "concat", "broadcast_to", "cross_entropy", "mse", "layer_norm", "rms_norm",
            "attention");
    static final Set<String> CONTEXTS = Set.of("group", "checkpoint");

    /** Every name a program can call. */
    static Set<String> all() {
        Set<String> s = new TreeSet<>(LEAVES);
        s.addAll(UNARY);
        s.addAll(OTHERS);
        s.addAll(CONTEXTS);
        return s;
    }

    static OpCall build(Args a) {
        String fn = a.fn();
        Map<String, Object> attrs = new HashMap<>();
        if (UNARY.contains(fn)) {
            a.allow(1, 1, fn + "(x)");
            return new OpCall(OpRegistry.create(fn, attrs), List.of(a.tensor(0)));
        }
        switch (fn) {
            case "sum", "mean", "amax" -> {
                a.allow(1, 3, fn + "(x, axis=None, keepdim=False)", "axis", "keepdim");
                attrs.put("axis", a.axes(1, "axis", null));
                attrs.put("keepdim", a.bool(2, "keepdim", false));
                return one(fn, attrs, a);
            }
            case "logsumexp" -> {
                a.allow(1, 3, "logsumexp(x, axis=-1, keepdim=False)", "axis", "keepdim");
                attrs.put("axis", a.axes(1, "axis", new int[] {-1}));
                attrs.put("keepdim", a.bool(2, "keepdim", false));
                return one(fn, attrs, a);
            }
            case "softmax", "log_softmax" -> {
                a.allow(1, 2, fn + "(x, axis=-1)", "axis");
                attrs.put("axis", a.integer(1, "axis", -1));
                return one(fn, attrs, a);
            }
            case "reshape", "broadcast_to" -> {
                a.allow(2, Integer.MAX_VALUE, fn + "(x, d0, d1, ...)");
                attrs.put("shape", a.intsFrom(1, "dimensions"));
                return one(fn, attrs, a);
            }
            case "transpose" -> {
                a.allow(1, 3, "transpose(x) or transpose(x, a, b)");
                if (a.count() == 2) {
                    throw a.error(a.pos(), "transpose() takes x alone (swapping the last two axes) or x with two axes a and b");
                }
                if (a.count() == 3) {
                    attrs.put("a", a.integer(1, "a", null));
                    attrs.put("b", a.integer(2, "b", null));
                }
                return one(fn, attrs, a);
            }
            case "permute" -> {
                a.allow(1, Integer.MAX_VALUE, "permute(x, p0, p1, ...)");
                attrs.put("perm", a.intsFrom(1, "axes"));
                return one(fn, attrs, a);
            }
            case "slice" -> {
                a.allow(4, 4, "slice(x, axis, start, stop)", "axis", "start", "stop");
                attrs.put("axis", a.integer(1, "axis", null));
                attrs.put("start", a.integer(2, "start", null));
                attrs.put("stop", a.integer(3, "stop", null));
                return one(fn, attrs, a);
            }
            case "concat" -> {
                a.allow(1, Integer.MAX_VALUE, "concat(a, b, ..., axis=0)", "axis");
                attrs.put("axis", a.integer(-1, "axis", 0));
                return new OpCall(OpRegistry.create(fn, attrs), a.tensors());
            }
            case "cross_entropy", "mse" -> {
                a.allow(2, 2, fn + (fn.equals("mse") ? "(a, b)" : "(logits, labels)"));
                return new OpCall(OpRegistry.create(fn, attrs), List.of(a.tensor(0), a.tensor(1)));
            }
            case "layer_norm" -> {
                a.allow(3, 4, "layer_norm(x, weight, bias, eps=1e-5)", "eps");
                attrs.put("eps", a.number(3, "eps", 1e-5));
                return new OpCall(OpRegistry.create(fn, attrs), List.of(a.tensor(0), a.tensor(1), a.tensor(2)));
            }
            case "rms_norm" -> {
                a.allow(2, 3, "rms_norm(x, weight, eps=1e-6)", "eps");
                attrs.put("eps", a.number(2, "eps", 1e-6));
                return new OpCall(OpRegistry.create(fn, attrs), List.of(a.tensor(0), a.tensor(1)));
            }
            case "attention" -> {
                a.allow(3, 4, "attention(q, k, v, causal=False)", "causal");
                attrs.put("causal", a.bool(3, "causal", false));
                return new OpCall(OpRegistry.create(fn, attrs), List.of(a.tensor(0), a.tensor(1), a.tensor(2)));
            }
            default -> throw new IllegalStateException("no function " + fn);
        }
    }

    private static OpCall one(String fn, Map<String, Object> attrs, Args a) {
        return new OpCall(OpRegistry.create(fn, attrs), List.of(a.tensor(0)));
    }
}
