package io.gradscope.engine.run;

import io.gradscope.engine.lang.Ast;
import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.lang.ProgramException;
import io.gradscope.engine.run.ExprValue.BoolVal;
import io.gradscope.engine.run.ExprValue.NoneVal;
import io.gradscope.engine.run.ExprValue.NumVal;
import io.gradscope.engine.run.ExprValue.StrVal;
import io.gradscope.engine.run.ExprValue.TensorVal;
import io.gradscope.engine.run.ExprValue.TupleVal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The evaluated arguments of one call, read by name or position with errors that point at the
 * offending argument: wrong type, missing, too many, unknown keyword.
 */
final class Args {
    private final String file;
    private final Ast.Call call;
    private final List<ExprValue> positional;
    private final Map<String, ExprValue> keywords;
    private final Map<String, Pos> keywordPos = new LinkedHashMap<>();

    Args(String file, Ast.Call call, List<ExprValue> positional, Map<String, ExprValue> keywords) {
        this.file = file;
        this.call = call;
        this.positional = positional;
        this.keywords = keywords;
        for (Ast.Keyword k : call.keywords()) {
            keywordPos.put(k.name(), k.pos());
        }
    }

    String fn() {
        return call.function();
    }

    ProgramException error(Pos pos, String what) {
        return new ProgramException(file, pos, what);
    }

    private Pos argPos(int i) {
        return call.args().get(i).pos();
    }

    int count() {
        return positional.size();
    }

    /** Rejects keywords outside {@code allowed} and more than {@code max} positional arguments. */
    void allow(int min, int max, String signature, String... allowed) {
        Set<String> ok = Set.of(allowed);
        for (Ast.Keyword k : call.keywords()) {
            if (!ok.contains(k.name())) {
                String hint = allowed.length == 0 ? fn() + "() takes no keyword arguments"
                        : "expected one of " + String.join(", ", allowed);
                throw error(k.pos(), fn() + "() got an unexpected keyword argument '" + k.name() + "' (" + hint + ")");
            }
        }
        if (positional.size() > max) {
            throw error(argPos(max), fn() + "() takes at most " + max + " positional argument" + (max == 1 ? "" : "s")
                    + " but " + positional.size() + " were given: " + signature);
        }
        if (positional.size() < min) {
            throw error(call.pos(), fn() + "() needs " + min + " argument" + (min == 1 ? "" : "s") + " but "
                    + positional.size() + (positional.size() == 1 ? " was" : " were") + " given: " + signature);
        }
    }

    TensorVal tensor(int i) {
        ExprValue v = positional.get(i);
        if (v instanceof TensorVal t) {
            return t;
        }
        throw error(argPos(i), fn() + "() argument " + (i + 1) + " must be a tensor, not " + ExprValue.kind(v));
    }

    /**
     * The tensor given as positional {@code i} or keyword {@code name}; null where an optional one is
     * left out or given as None.
     */
    TensorVal tensor(int i, String name, boolean optional) {
        ExprValue v = get(i, name);
        if (v == null || optional && v instanceof NoneVal) {
            if (optional) {
                return null;
            }
            throw error(call.pos(), fn() + "() is missing its argument '" + name + "'");
        }
        if (i < positional.size()) {
            return tensor(i);
        }
        if (v instanceof TensorVal t) {
            return t;
        }
        throw error(where(i, name), fn() + "(): '" + name + "' must be a tensor, not " + ExprValue.kind(v));
    }

    /** Positional {@code i} if given, else keyword {@code name}, else null. */
    ExprValue get(int i, String name) {
        if (i >= 0 && i < positional.size()) {
            if (keywords.containsKey(name)) {
                throw error(keywordPos.get(name), fn() + "() got argument '" + name + "' twice");
            }
            return positional.get(i);
        }
        return keywords.get(name);
    }

    /** Whether the call gave positional {@code i} or keyword {@code name}. */
    boolean given(int i, String name) {
        return (i >= 0 && i < positional.size()) || keywords.containsKey(name);
    }

    private Pos where(int i, String name) {
        return i >= 0 && i < positional.size() ? argPos(i) : keywordPos.getOrDefault(name, call.pos());
    }

    int integer(int i, String name, Integer dflt) {
        ExprValue v = get(i, name);
        if (v == null) {
            if (dflt == null) {
                throw error(call.pos(), fn() + "() is missing its argument '" + name + "'");
            }
            return dflt;
        }
        return asInt(v, where(i, name), "'" + name + "'");
    }

    int asInt(ExprValue v, Pos pos, String what) {
        if (v instanceof NumVal n && n.integral() && Math.abs(n.value()) <= Integer.MAX_VALUE) {
            return (int) n.value();
        }
        if (v instanceof NumVal n && n.integral()) {
            throw error(pos, fn() + "(): " + what + " must be at most 2147483647 in size, not " + n.shown());
        }
        throw error(pos, fn() + "(): " + what + " must be an integer, not " + ExprValue.kind(v));
    }

    double number(int i, String name, double dflt) {
        ExprValue v = get(i, name);
        if (v == null) {
            return dflt;
        }
        if (v instanceof NumVal n) {
            return n.value();
        }
        throw error(where(i, name), fn() + "(): '" + name + "' must be a number, not " + ExprValue.kind(v));
    }

    boolean bool(int i, String name, boolean dflt) {
        ExprValue v = get(i, name);
        if (v == null) {
            return dflt;
        }
        if (v instanceof BoolVal b) {
            return b.value();
        }
        throw error(where(i, name), fn() + "(): '" + name + "' must be True or False, not " + ExprValue.kind(v));
    }

    String string(int i, String name, String dflt) {
        ExprValue v = get(i, name);
        if (v == null) {
            return dflt;
        }
        if (v instanceof StrVal s) {
            return s.value();
        }
        throw error(where(i, name), fn() + "(): '" + name + "' must be a string, not " + ExprValue.kind(v));
    }

    /** An axis argument: an int, a tuple of ints, or None (all axes: returns null). */
    int[] axes(int i, String name, int[] dflt) {
        ExprValue v = get(i, name);
        if (v == null) {
            return dflt;
        }
        if (v instanceof NoneVal) {
            return null;
        }
        Pos pos = where(i, name);
        if (v instanceof TupleVal t) {
            int[] out = new int[t.items().size()];
            for (int k = 0; k < out.length; k++) {
                out[k] = asInt(t.items().get(k), pos, "'" + name + "'");
            }
            return out;
        }
        return new int[] {asInt(v, pos, "'" + name + "'")};
    }

    /** The positional arguments from {@code from} on as integers (a single tuple is unpacked). */
    int[] intsFrom(int from, String what) {
        List<ExprValue> vs = new ArrayList<>(positional.subList(Math.min(from, positional.size()), positional.size()));
        List<Pos> ps = new ArrayList<>();
        for (int k = from; k < positional.size(); k++) {
            ps.add(argPos(k));
        }
        if (vs.size() == 1 && vs.get(0) instanceof TupleVal t) {
            Pos p0 = ps.get(0);
            vs = t.items();
            ps = new ArrayList<>();
            for (int k = 0; k < vs.size(); k++) {
                ps.add(p0);
            }
        }
        int[] out = new int[vs.size()];
        for (int k = 0; k < out.length; k++) {
            out[k] = asInt(vs.get(k), ps.get(k), what);
        }
        return out;
    }

    /** Every positional argument as a tensor. */
    List<TensorVal> tensors() {
        List<TensorVal> out = new ArrayList<>();
        for (int k = 0; k < positional.size(); k++) {
            out.add(tensor(k));
        }
        return out;
    }

    Pos pos() {
        return call.pos();
    }

    /** Where keyword {@code name} is written, or the call's position when it is not given. */
    Pos keywordPos(String name) {
        return keywordPos.getOrDefault(name, call.pos());
    }

    Pos positionOf(int i) {
        return argPos(i);
    }
}
