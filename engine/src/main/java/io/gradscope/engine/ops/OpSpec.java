package io.gradscope.engine.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One op's declaration, the only place its name is listed: how programs call it (the PyTorch name,
 * a typed signature with defaults, or an operator symbol), its PyTorch reference, whether it is a
 * view or linear, and how to build it from its attributes. The op itself ({@link Op}) holds the
 * shape rule, forward, VJP and rule text. {@link OpSpecs} holds every spec; the registry, the
 * program language's function table, the docs' function table and the generic op tests all read
 * them.
 *
 * @param name the op's name: the function programs call (as PyTorch names it)
 * @param operator the program operator that applies it ({@code "+"}, {@code "@"}), or null
 * @param callable whether programs call it by name (ops applied only by operators, or only
 *     inside other ops' VJPs, are not)
 * @param params tensor inputs and attributes, in call order
 * @param torch the PyTorch reference, as the docs show it
 * @param reference the PyTorch reference as Python, a lambda of the parameters
 *     ({@code lambda x, axis=-1: torch.softmax(x, axis)}): what the reference generators call for
 *     the op (see {@link #reference()})
 * @param note a remark for the docs ("mean over the batch"), or empty
 * @param view whether the result shares the input's storage when it can (nothing computed)
 * @param elementwise whether it is an elementwise function of one tensor (a {@link UnaryOp})
 * @param linear whether the op is linear in its tensor inputs together: its JVP is the op applied
 *     to the tangents (as JAX's {@code deflinear})
 * @param allOrNone attribute names that are given together or not at all (e.g. transpose's axes),
 *     with {@code usage} saying how
 * @param usage the signature as the program error messages show it
 * @param classLabels the tensor parameter that holds class indices into the last dimension of the
 *     first one (cross_entropy's labels into its logits), or null
 */
public record OpSpec(String name, String operator, boolean callable, List<Param> params, String torch, String reference, String note,
                     boolean view,
                     boolean elementwise, boolean linear, List<String> allOrNone, String usage, Function<OpAttrs, Op> factory,
                     String classLabels) {

    /** Builds the op from attribute values; missing ones take the spec's defaults. */
    public Op create(Map<String, Object> attrs) {
        return factory.apply(new OpAttrs(this, attrs));
    }

    /** The parameter called {@code name}, or null. */
    public Param param(String name) {
        for (Param p : params) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        return null;
    }

    /** The signature as the docs show it: {@code sum(x, axis=None, keepdim=False)}. */
    public String signature() {
        return signatureOf(name, params);
    }

    private static String signatureOf(String name, List<Param> params) {
        List<String> parts = new ArrayList<>();
        params.forEach(p -> parts.add(p.text()));
        return name + "(" + String.join(", ", parts) + ")";
    }

    /**
     * Whether programs may give this parameter by keyword: tensors and attributes can (as the function
     * table writes them, {@code cross_entropy(x, t, weight=w)}); dimension lists and a varargs tensor
     * list cannot.
     */
    public static boolean keyword(Param p) {
        return p.kind() != Param.Kind.TENSORS && p.kind() != Param.Kind.DIMS;
    }

    /** Starts a spec for the function {@code name}. */
    static Builder fn(String name) {
        return new Builder(name);
    }

    /** Collects a spec's parts in the order they are declared. */
    static final class Builder {
        private final String name;
        private String operator;
        private boolean callable = true;
        private final List<Param> params = new ArrayList<>();
        private String torch = "";
        private String reference;
        private String note = "";
        private Function<OpAttrs, Op> factory;
        private boolean view;
        private boolean linear;
        private boolean elementwise;
        private List<String> allOrNone = List.of();
        private String usage;
        private String classLabels;

        private Builder(String name) {
            this.name = name;
        }

        Builder tensor(String n) {
            params.add(Param.tensor(n));
            return this;
        }

        /** A tensor input before the parameters given so far (an elementwise function's x). */
        Builder tensorFirst(String n) {
            params.add(0, Param.tensor(n));
            return this;
        }

        /** A tensor input that may be left out (None): a bias. */
        Builder optionalTensor(String n) {
            params.add(new Param(n, Param.Kind.TENSOR, true, null, null, null));
            return this;
        }

        /** An integer or a tuple of integers; a null default means None is allowed. */
        Builder ints(String n, int[] dflt) {
            params.add(new Param(n, Param.Kind.INTS, true, dflt, null, null));
            return this;
        }

        Builder ints(String n) {
            params.add(new Param(n, Param.Kind.INTS, false, null, null, null));
            return this;
        }

        Builder tensors() {
            params.add(new Param("tensors", Param.Kind.TENSORS, false, null, null, null));
            return this;
        }

        Builder dims(String n, String letter, String noun) {
            params.add(new Param(n, Param.Kind.DIMS, false, null, noun, letter));
            return this;
        }

        Builder axes(String n, int[] dflt) {
            params.add(new Param(n, Param.Kind.AXES, true, dflt, null, null));
            return this;
        }

        Builder integer(String n) {
            params.add(new Param(n, Param.Kind.INT, false, null, null, null));
            return this;
        }

        Builder integer(String n, int dflt) {
            params.add(new Param(n, Param.Kind.INT, true, dflt, null, null));
            return this;
        }

        Builder number(String n, double dflt) {
            params.add(new Param(n, Param.Kind.NUMBER, true, dflt, null, null));
            return this;
        }

        /** A number that may be left out or None (interpolate's scale_factor). */
        Builder optionalNumber(String n) {
            params.add(new Param(n, Param.Kind.NUMBER, true, null, null, null));
            return this;
        }

        Builder number(String n) {
            params.add(new Param(n, Param.Kind.NUMBER, false, null, null, null));
            return this;
        }

        Builder string(String n, String dflt) {
            params.add(new Param(n, Param.Kind.STRING, true, dflt, null, null));
            return this;
        }

        Builder bool(String n, boolean dflt) {
            params.add(new Param(n, Param.Kind.BOOL, true, dflt, null, null));
            return this;
        }

        /** Applied by a program operator, not called by name. */
        Builder operator(String symbol) {
            this.operator = symbol;
            this.callable = false;
            return this;
        }

        /** Applied only by other ops (their VJPs), never named in a program. */
        Builder internal() {
            this.callable = false;
            return this;
        }

        Builder torch(String reference) {
            this.torch = reference;
            return this;
        }

        /**
         * The reference as a Python expression of the parameters, where the docs' {@link #torch} text
         * is not one ({@code x.reshape(...)}); torch and F (torch.nn.functional) are in scope.
         */
        Builder reference(String pythonBody) {
            this.reference = pythonBody;
            return this;
        }

        Builder note(String remark) {
            this.note = remark;
            return this;
        }

        String name() {
            return name;
        }

        Builder view() {
            this.view = true;
            return this;
        }

        Builder elementwise() {
            this.elementwise = true;
            return this;
        }

        Builder linear() {
            return linearIf(true);
        }

        Builder linearIf(boolean isLinear) {
            this.linear = isLinear;
            return this;
        }

        Builder allOrNone(String usageText, String... names) {
            this.allOrNone = List.of(names);
            this.usage = usageText;
            return this;
        }

        /** The tensor parameter {@code labels} holds class indices into the last dimension of the first tensor. */
        Builder classLabels(String labels) {
            this.classLabels = labels;
            return this;
        }

        /** How the op is built from its attributes. */
        Builder op(Function<OpAttrs, Op> f) {
            this.factory = f;
            return this;
        }

        OpSpec build() {
            return new OpSpec(name, operator, callable, List.copyOf(params), torch, PythonReference.lambda(params,
                    reference != null ? reference : PythonReference.body(torch, params)), note, view, elementwise, linear, allOrNone,
                    usage != null ? usage : signatureOf(name, params), factory, classLabels);
        }
    }
}
