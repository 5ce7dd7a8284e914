package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Every op of the table by name, built from its attributes. The program interpreter and the
 * op-table tests reach ops through here; attribute values are Integer, int[] (axes, shapes),
 * Double or Boolean.
 */
public final class OpRegistry {
    private static final Map<String, Function<Attrs, Op>> OPS = new LinkedHashMap<>();

    static {
        for (BinaryOp op : BinaryOp.ALL) {
            OPS.put(op.name(), a -> op);
        }
        OPS.put("matmul", a -> MatMulOp.INSTANCE);
        OPS.put("pow", a -> new PowOp(a.dbl("exponent", null)));
        for (UnaryOp op : UnaryOp.ALL) {
            OPS.put(op.name(), a -> op);
        }
        for (ReduceOp.Kind k : ReduceOp.Kind.values()) {
            OPS.put(k.name().toLowerCase(java.util.Locale.ROOT), a -> new ReduceOp(k, a.axes("axis", null), a.bool("keepdim", false)));
        }
        OPS.put("logsumexp", a -> new LogSumExpOp(a.axes("axis", new int[] {-1}), a.bool("keepdim", false)));
        OPS.put("softmax", a -> new SoftmaxOp(a.integer("axis", -1), false));
        OPS.put("log_softmax", a -> new SoftmaxOp(a.integer("axis", -1), true));
        OPS.put("reshape", a -> new ViewOps.Reshape(a.ints("shape")));
        OPS.put("transpose", a -> ViewOps.Permute.swap(a.integer("a", -2), a.integer("b", -1)));
        OPS.put("permute", a -> new ViewOps.Permute(a.ints("perm"), null));
        OPS.put("slice", a -> new ViewOps.Slice(a.integer("axis", null), a.integer("start", null), a.integer("stop", null)));
        OPS.put("pad", a -> new ViewOps.Pad(a.integer("axis", null), a.integer("before", null), a.integer("after", null)));
        OPS.put("concat", a -> new ViewOps.Concat(a.integer("axis", 0)));
        OPS.put("broadcast_to", a -> new ViewOps.BroadcastTo(a.ints("shape")));
        OPS.put("cross_entropy", a -> CrossEntropyOp.INSTANCE);
        OPS.put("mse", a -> MseOp.INSTANCE);
        OPS.put("layer_norm", a -> new LayerNormOp(a.dbl("eps", 1e-5)));
        OPS.put("rms_norm", a -> new RmsNormOp(a.dbl("eps", 1e-6)));
        OPS.put("attention", a -> new AttentionOp(a.bool("causal", false)));
    }

    private OpRegistry() {
    }

    /** Every op name, in table order. */
    public static List<String> names() {
        return List.copyOf(OPS.keySet());
    }

    public static boolean has(String name) {
        return OPS.containsKey(name);
    }

    /** Builds the op {@code name} with attributes (missing ones take their defaults). */
    public static Op create(String name, Map<String, Object> attrs) {
        Function<Attrs, Op> f = OPS.get(name);
        if (f == null) {
            throw new GradscopeException("unknown op '" + name + "'");
        }
        return f.apply(new Attrs(name, attrs));
    }

    /** Typed access to an op's attributes. */
    static final class Attrs {
        private final String op;
        private final Map<String, Object> values;

        Attrs(String op, Map<String, Object> values) {
            this.op = op;
            this.values = values;
        }

        Set<String> keys() {
            return values.keySet();
        }

        private Object get(String key, Object dflt) {
            Object v = values.get(key);
            if (v == null && !values.containsKey(key)) {
                if (dflt == null) {
                    throw new GradscopeException(op + ": missing argument '" + key + "'");
                }
                return dflt;
            }
            return v;
        }

        int integer(String key, Integer dflt) {
            Object v = get(key, dflt);
            if (v instanceof Number n && n.doubleValue() == n.intValue()) {
                return n.intValue();
            }
            throw new GradscopeException(op + ": '" + key + "' must be an integer, not " + v);
        }

        double dbl(String key, Double dflt) {
            Object v = get(key, dflt);
            if (v instanceof Number n) {
                return n.doubleValue();
            }
            throw new GradscopeException(op + ": '" + key + "' must be a number, not " + v);
        }

        boolean bool(String key, Boolean dflt) {
            Object v = get(key, dflt);
            if (v instanceof Boolean b) {
                return b;
            }
            throw new GradscopeException(op + ": '" + key + "' must be True or False, not " + v);
        }

        int[] ints(String key) {
            Object v = get(key, null);
            if (v instanceof int[] a) {
                return a;
            }
            if (v instanceof Number n) {
                return new int[] {n.intValue()};
            }
            throw new GradscopeException(op + ": '" + key + "' must be integers, not " + v);
        }

        /** An axis, a tuple of axes, or None (all). */
        int[] axes(String key, int[] dflt) {
            if (!values.containsKey(key)) {
                return dflt;
            }
            Object v = values.get(key);
            if (v == null) {
                return null;
            }
            if (v instanceof Number) {
                return new int[] {integer(key, null)};
            }
            return ints(key);
        }
    }
}
