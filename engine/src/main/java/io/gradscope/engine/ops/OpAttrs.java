package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import java.util.Map;

/**
 * An op's attribute values by name, typed, with the defaults of its {@link OpSpec}. Values are
 * Integer, int[] (axes, shapes), Double, Boolean or null (None).
 */
public final class OpAttrs {
    private final OpSpec spec;
    private final Map<String, Object> values;

    OpAttrs(OpSpec spec, Map<String, Object> values) {
        this.spec = spec;
        this.values = values;
    }

    private Object get(String key) {
        if (values.containsKey(key)) {
            return values.get(key);
        }
        Param p = spec.param(key);
        if (p == null || !p.optional()) {
            throw new GradscopeException(spec.name() + ": missing argument '" + key + "'");
        }
        return p.dflt();
    }

    /** Whether the value was given (not taken from the default). */
    boolean given(String key) {
        return values.containsKey(key);
    }

    /** The op's name with the attributes given: {@code hardtanh(min_val=-2, max_val=2)}. */
    String label() {
        java.util.List<String> parts = new java.util.ArrayList<>();
        for (Param p : spec.params()) {
            if (!p.isTensor() && values.containsKey(p.name())) {
                parts.add(p.name() + "=" + Param.valueText(values.get(p.name())));
            }
        }
        return parts.isEmpty() ? spec.name() : spec.name() + "(" + String.join(", ", parts) + ")";
    }

    int integer(String key) {
        Object v = get(key);
        if (v instanceof Number n && n.doubleValue() == n.intValue()) {
            return n.intValue();
        }
        throw new GradscopeException(spec.name() + ": '" + key + "' must be an integer, not " + v);
    }

    double number(String key) {
        Object v = get(key);
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        throw new GradscopeException(spec.name() + ": '" + key + "' must be a number, not " + v);
    }

    /** A number attribute, or null where it is None or left out without a default. */
    Double numberOrNull(String key) {
        return get(key) == null ? null : number(key);
    }

    boolean bool(String key) {
        Object v = get(key);
        if (v instanceof Boolean b) {
            return b;
        }
        throw new GradscopeException(spec.name() + ": '" + key + "' must be True or False, not " + v);
    }

    /** A string attribute, checked against the choices the op takes. */
    String string(String key, String... choices) {
        Object v = get(key);
        for (String c : choices) {
            if (c.equals(v)) {
                return c;
            }
        }
        throw new GradscopeException(spec.name() + ": '" + key + "' must be one of " + String.join(", ",
                java.util.Arrays.stream(choices).map(c -> "\"" + c + "\"").toList()) + ", not " + (v instanceof String ? "\"" + v + "\"" : v));
    }

    /** A free string attribute (einsum's equation); given or an error. */
    String text(String key) {
        Object v = get(key);
        if (v instanceof String t) {
            return t;
        }
        throw new GradscopeException(spec.name() + ": missing argument '" + key + "' (a string)");
    }

    int[] ints(String key) {
        Object v = get(key);
        if (v instanceof int[] a) {
            return a;
        }
        if (v instanceof Number n) {
            return new int[] {n.intValue()};
        }
        throw new GradscopeException(spec.name() + ": '" + key + "' must be integers, not " + v);
    }

    /** An integer or a tuple of integers, or null where None was given or is the default. */
    int[] intsOrNull(String key) {
        return get(key) == null ? null : ints(key);
    }

    /** An axis, a tuple of axes, or None (null: all axes). */
    int[] axes(String key) {
        Object v = get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof Number) {
            return new int[] {integer(key)};
        }
        return ints(key);
    }
}
