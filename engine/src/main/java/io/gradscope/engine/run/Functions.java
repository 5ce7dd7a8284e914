package io.gradscope.engine.run;

import io.gradscope.engine.lang.Parser;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpSpec;
import io.gradscope.engine.ops.OpSpecs;
import io.gradscope.engine.ops.Param;
import io.gradscope.engine.run.ExprValue.TensorVal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The functions of the program format: the leaves and with-contexts of the language, and every op
 * whose {@link OpSpec} is callable. A call's arguments are read by the spec's signature and become
 * the op and its tensor inputs.
 */
final class Functions {
    private Functions() {
    }

    /** An op and the tensors it is applied to. */
    record OpCall(Op op, List<TensorVal> inputs) {
    }

    static final Set<String> LEAVES = Set.of("input", "param", "labels");
    static final Set<String> CONTEXTS = Set.of("group", "checkpoint");
    private static final Set<String> ALL = all(LEAVES, CONTEXTS);

    private static Set<String> all(Set<String> leaves, Set<String> contexts) {
        Set<String> s = new TreeSet<>(leaves);
        s.addAll(contexts);
        s.addAll(OpSpecs.callableNames());
        return Set.copyOf(s);
    }

    /** Every name a program can call. */
    static Set<String> all() {
        return ALL;
    }

    /** Every name a program can call, split and chunk included (for suggestions). */
    static Set<String> withSeveral() {
        Set<String> s = new TreeSet<>(ALL);
        s.addAll(Parser.SEVERAL);
        return s;
    }

    /** The spec of the op a program calls by {@code fn}, or null. */
    static OpSpec op(String fn) {
        OpSpec s = OpSpecs.get(fn);
        return s != null && s.callable() ? s : null;
    }

    /** Reads a call of the op {@code spec} by its signature. */
    static OpCall build(OpSpec spec, Args a) {
        List<Param> params = spec.params();
        int required = 0;
        boolean rest = false;
        List<String> keywords = new ArrayList<>();
        for (Param p : params) {
            rest |= p.kind() == Param.Kind.TENSORS || p.kind() == Param.Kind.DIMS;
            required += p.optional() || p.kind() == Param.Kind.TENSORS || p.kind() == Param.Kind.DIMS ? 0 : 1;
            if (OpSpec.keyword(p) && spec.allOrNone().isEmpty()) {
                keywords.add(p.name());
            }
        }
        required += rest ? 1 : 0;
        for (Param p : params) {
            // A required attribute given by keyword leaves one positional argument fewer to require.
            if (!p.optional() && OpSpec.keyword(p) && a.given(-1, p.name())) {
                required--;
            }
        }
        a.allow(required, rest ? Integer.MAX_VALUE : params.size(), spec.usage(), keywords.toArray(new String[0]));
        if (!spec.allOrNone().isEmpty()) {
            int first = params.indexOf(spec.param(spec.allOrNone().get(0)));
            if (a.count() > first && a.count() < first + spec.allOrNone().size()) {
                throw a.error(a.pos(), spec.name() + "() takes " + String.join(" and ", spec.allOrNone())
                        + " together or not at all: " + spec.usage());
            }
        }
        Map<String, Object> attrs = new HashMap<>();
        List<TensorVal> inputs = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) {
            Param p = params.get(i);
            // An attribute after the varargs tensors is given by keyword only.
            int at = i > 0 && params.get(0).kind() == Param.Kind.TENSORS ? -1 : i;
            switch (p.kind()) {
                case TENSOR -> {
                    // By position or keyword; an optional tensor (a bias) left out, or given as None, is no input.
                    TensorVal t = a.tensor(i, p.name(), p.optional());
                    if (t != null) {
                        inputs.add(t);
                        if (p.optional()) {
                            // which optional tensors came (bce's weight and pos_weight): OpAttrs.given
                            attrs.put(p.name(), Boolean.TRUE);
                        }
                    }
                }
                case TENSORS -> inputs.addAll(a.tensors());
                case DIMS -> attrs.put(p.name(), a.intsFrom(i, p.noun()));
                case AXES -> put(attrs, p, a.axes(at, p.name(), (int[]) p.dflt()), a, at);
                case INTS -> put(attrs, p, ints(spec, p, a, at), a, at);
                case INT -> put(attrs, p, a.integer(at, p.name(), (Integer) p.dflt()), a, at);
                case NUMBER -> {
                    // A number whose default is None (interpolate's scale_factor) may be given as None: left out.
                    if (!(p.optional() && p.dflt() == null && a.given(at, p.name()) && a.get(at, p.name()) instanceof ExprValue.NoneVal)) {
                        put(attrs, p, a.number(at, p.name(), p.dflt() == null ? Double.NaN : (Double) p.dflt()), a, at);
                    }
                }
                case BOOL -> put(attrs, p, a.bool(at, p.name(), (Boolean) p.dflt()), a, at);
                case STRING -> put(attrs, p, a.string(at, p.name(), (String) p.dflt()), a, at);
            }
        }
        return new OpCall(spec.create(attrs), inputs);
    }

    /** An integer or a tuple of integers; None only where the default is None. */
    private static int[] ints(OpSpec spec, Param p, Args a, int at) {
        if (!p.optional() && !a.given(at, p.name())) {
            throw a.error(a.pos(), spec.name() + "() is missing its argument '" + p.name() + "'");
        }
        int[] v = a.axes(at, p.name(), (int[]) p.dflt());
        if (v == null && (p.dflt() != null || !p.optional())) {
            throw a.error(a.pos(), spec.name() + "(): '" + p.name() + "' must be an integer or a tuple of integers, not None");
        }
        return v;
    }

    /** Records an attribute the call gave; defaults stay the spec's (so labels show what was written). */
    private static void put(Map<String, Object> attrs, Param p, Object v, Args a, int at) {
        if (a.given(at, p.name()) || !p.optional()) {
            attrs.put(p.name(), v);
        }
    }
}
