package io.gradscope.engine.ops;

/**
 * One parameter of an op as programs call it: a tensor input or an attribute, with its default.
 * {@link OpSpec} holds a list of them; the program language reads calls by them and the function
 * table in docs/PROGRAM-FORMAT.md is written from them.
 *
 * @param name the keyword (and attribute) name: {@code axis}, {@code eps}
 * @param kind what it takes
 * @param optional whether it may be left out ({@code dflt} then applies; null means None)
 * @param dflt the default, as an attribute value (Integer, Double, Boolean, int[] or null)
 * @param noun for {@link Kind#DIMS}: what the integers are, for messages ("dimensions", "axes")
 * @param letter for {@link Kind#DIMS}: the letter of the signature text ({@code d0, d1, ...})
 */
public record Param(String name, Kind kind, boolean optional, Object dflt, String noun, String letter) {

    /** What a parameter takes. */
    public enum Kind {
        /** One tensor input. */
        TENSOR,
        /** Any number of tensor inputs (the rest of the positional arguments). */
        TENSORS,
        /** The rest of the positional arguments as integers (or one tuple of them). */
        DIMS,
        /** An axis, a tuple of axes, or None (all axes). */
        AXES,
        /** An integer or a tuple of integers (one per spatial axis: a kernel size, a stride). */
        INTS,
        INT,
        NUMBER,
        BOOL,
        /** A string, one of a few choices the op checks ({@code approximate="tanh"}, {@code reduction="sum"}). */
        STRING
    }

    static Param tensor(String name) {
        return new Param(name, Kind.TENSOR, false, null, null, null);
    }

    /** Whether it is a tensor input (one or many) rather than an attribute. */
    public boolean isTensor() {
        return kind == Kind.TENSOR || kind == Kind.TENSORS;
    }

    /** As the signature shows it: {@code x}, {@code axis=None}, {@code d0, d1, ...}, {@code a, b, ...}. */
    public String text() {
        return switch (kind) {
            case TENSORS -> "a, b, ...";
            case DIMS -> letter + "0, " + letter + "1, ...";
            default -> optional ? name + "=" + valueText(dflt) : name;
        };
    }

    /** A value as Python writes it: None, True, -1, 1e-5. */
    static String valueText(Object v) {
        if (v == null) {
            return "None";
        }
        if (v instanceof int[] a) {
            return a.length == 1 ? Integer.toString(a[0])
                    : "(" + String.join(", ", java.util.Arrays.stream(a).mapToObj(Integer::toString).toList()) + ")";
        }
        if (v instanceof String s) {
            return "\"" + s + "\"";
        }
        if (v instanceof Boolean b) {
            return b ? "True" : "False";
        }
        if (v instanceof Double d && d != 0 && Math.abs(d) < 1e-3) {
            int exp = (int) Math.floor(Math.log10(Math.abs(d)));
            double mant = d / Math.pow(10, exp);
            return NumberText.text(Math.round(mant * 1e6) / 1e6) + "e" + exp;
        }
        if (v instanceof Number n) {
            return NumberText.text(n.doubleValue());
        }
        return String.valueOf(v);
    }
}
