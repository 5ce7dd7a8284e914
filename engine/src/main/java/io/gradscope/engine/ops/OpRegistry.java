package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import java.util.List;
import java.util.Map;

/**
 * Every op of the table by name, built from its attributes: a view of {@link OpSpecs}. The program
 * interpreter and the op-table tests reach ops through here; attribute values are Integer, int[]
 * (axes, shapes), Double, Boolean or null (None), and missing ones take the spec's defaults.
 */
public final class OpRegistry {
    private OpRegistry() {
    }

    /** Every op name, in table order. */
    public static List<String> names() {
        return OpSpecs.all().stream().map(OpSpec::name).toList();
    }

    public static boolean has(String name) {
        return OpSpecs.get(name) != null;
    }

    /** The spec of the op {@code name}. */
    public static OpSpec spec(String name) {
        OpSpec s = OpSpecs.get(name);
        if (s == null) {
            throw new GradscopeException("unknown op '" + name + "'");
        }
        return s;
    }

    /** Builds the op {@code name} with attributes (missing ones take their defaults). */
    public static Op create(String name, Map<String, Object> attrs) {
        return spec(name).create(attrs);
    }
}
