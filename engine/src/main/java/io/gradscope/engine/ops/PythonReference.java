package io.gradscope.engine.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * An op's PyTorch reference as Python the reference generators can call: a lambda whose parameters
 * are the spec's (tensors, then attributes with their defaults; a tensor list or a dimension list
 * as {@code *name}). By default the body is the docs' torch text: called with the parameters where
 * it names a function ({@code torch.exp}), as written where it is already an expression of them
 * ({@code F.softplus(x)}).
 */
final class PythonReference {
    private static final Pattern CALLABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_.]*");

    private PythonReference() {
    }

    /** The default body for the docs' text {@code torch}. */
    static String body(String torch, List<Param> params) {
        if (!CALLABLE.matcher(torch).matches()) {
            return torch;
        }
        List<String> args = new ArrayList<>();
        for (Param p : params) {
            args.add(starred(p) ? "*" + p.name() : p.name());
        }
        return torch + "(" + String.join(", ", args) + ")";
    }

    /** {@code lambda PARAMS: body}. */
    static String lambda(List<Param> params, String body) {
        List<String> names = new ArrayList<>();
        for (Param p : params) {
            if (starred(p)) {
                names.add("*" + p.name());
            } else if (p.optional()) {
                names.add(p.name() + "=" + Param.valueText(p.dflt()));
            } else {
                names.add(p.name());
            }
        }
        return "lambda " + String.join(", ", names) + ": " + body;
    }

    /** The rest of the positional arguments: a tensor list or a dimension list. */
    private static boolean starred(Param p) {
        return p.kind() == Param.Kind.TENSORS || p.kind() == Param.Kind.DIMS;
    }
}
