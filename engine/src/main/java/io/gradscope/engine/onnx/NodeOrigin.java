package io.gradscope.engine.onnx;

import ai.onnx.proto.OnnxMl;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The ONNX node a statement of an imported program comes from, as the import writes it in the
 * statement's comment and as the app reads it back: the node's name, its operator and its attributes,
 * in the order the model lists them.
 *
 * <pre>{@code
 * layer1_0_conv2 = conv2d(...)  # /layer1/layer1.0/conv2/Conv · Conv  dilations=[2,2] group=2 kernel_shape=[3,3]
 * NodeOrigin o = NodeOrigin.parse(line).orElseThrow();
 * o.name();       // "/layer1/layer1.0/conv2/Conv"
 * o.opType();     // "Conv"
 * o.attributes(); // [dilations=[2,2], group=2, kernel_shape=[3,3]]
 * }</pre>
 *
 * The comment is {@code NAME · OP} and, when the node has attributes, two spaces and {@code key=value}
 * pairs separated by one space. A name with a space, a quote, a backslash, '·' or '#' in it (or an
 * empty one) is written as a quoted string. Values: an integer ({@code 2}), a float ({@code 1e-05}: Java's shortest digits that
 * read back as the same float), a quoted string ({@code "constant"}), a list in brackets without spaces
 * ({@code [3,3]}, {@code ["a","b"]}), a tensor by its dimensions ({@code tensor[2,3]}), or {@code graph}.
 *
 * @param attributes each attribute's name and its value as written
 */
public record NodeOrigin(String name, String opType, List<Attribute> attributes) {
    private static final String SEP = " · ";

    /** One attribute: its name and its value as the comment writes it ({@code [3,3]}, {@code 1e-05}, {@code "constant"}). */
    public record Attribute(String name, String value) {
        @Override
        public String toString() {
            return name + "=" + value;
        }
    }

    public NodeOrigin {
        attributes = List.copyOf(attributes);
    }

    /** What a node of the model is, in the comment's terms. */
    static NodeOrigin of(OnnxMl.NodeProto n) {
        List<Attribute> attrs = new ArrayList<>();
        for (OnnxMl.AttributeProto a : n.getAttributeList()) {
            attrs.add(new Attribute(a.getName(), value(a)));
        }
        return new NodeOrigin(n.getName(), n.getOpType(), attrs);
    }

    /** The comment's text (without the '#'). */
    public String comment() {
        StringBuilder sb = new StringBuilder(bare(name) ? name : quoted(name)).append(SEP).append(opType);
        for (int i = 0; i < attributes.size(); i++) {
            sb.append(i == 0 ? "  " : " ").append(attributes.get(i));
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return comment();
    }

    /**
     * The node named by a statement's comment: {@code text} is the statement's line (its comment is
     * found after the code, outside string literals) or the comment alone. Empty when there is no
     * comment or it does not name a node (a leaf's "initializer 'w'", the objective's comment).
     */
    public static Optional<NodeOrigin> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String c = commentOf(text).strip();
        Reader r = new Reader(c);
        String name = r.name();
        if (name == null || !r.take(SEP)) {
            return Optional.empty();
        }
        String op = r.identifier();
        if (op == null) {
            return Optional.empty();
        }
        List<Attribute> attrs = new ArrayList<>();
        if (!r.atEnd()) {
            if (!r.take("  ")) {
                return Optional.empty();
            }
            do {
                String key = r.identifier();
                if (key == null || !r.take("=")) {
                    return Optional.empty();
                }
                String v = r.value();
                if (v == null) {
                    return Optional.empty();
                }
                attrs.add(new Attribute(key, v));
            } while (r.take(" "));
            if (!r.atEnd()) {
                return Optional.empty();
            }
        }
        return Optional.of(new NodeOrigin(name, op, attrs));
    }

    /** How the import comments a parameter's leaf: {@code initializer 'onnx::Conv_193'}. */
    static String initializerComment(String onnxName) {
        return "initializer '" + onnxName + "'";
    }

    /**
     * The ONNX initializer a leaf's line of an imported program reads ({@code onnx::Conv_193} from
     * {@code conv1_weight = param(...)  # initializer 'onnx::Conv_193'}); empty for any other line.
     */
    public static Optional<String> initializer(String line) {
        if (line == null) {
            return Optional.empty();
        }
        String c = commentOf(line).strip();
        String start = "initializer '";
        return c.startsWith(start) && c.endsWith("'") && c.length() > start.length() + 1
                ? Optional.of(c.substring(start.length(), c.length() - 1)) : Optional.empty();
    }

    /** The text after the first '#' outside a string literal (a statement's comment); the whole text when it has none. */
    private static String commentOf(String line) {
        boolean inString = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (inString && ch == '\\') {
                i++;
            } else if (ch == '"') {
                inString = !inString;
            } else if (ch == '#' && !inString) {
                return line.substring(i + 1);
            }
        }
        return line;
    }

    // ---- writing values ---------------------------------------------------------------------------

    private static String value(OnnxMl.AttributeProto a) {
        switch (a.getType()) {
            case INT:
                return Long.toString(a.getI());
            case FLOAT:
                return floatText(a.getF());
            case STRING:
                return quoted(a.getS().toStringUtf8());
            case INTS: {
                List<String> v = new ArrayList<>();
                a.getIntsList().forEach(x -> v.add(Long.toString(x)));
                return "[" + String.join(",", v) + "]";
            }
            case FLOATS: {
                List<String> v = new ArrayList<>();
                a.getFloatsList().forEach(x -> v.add(floatText(x)));
                return "[" + String.join(",", v) + "]";
            }
            case STRINGS: {
                List<String> v = new ArrayList<>();
                a.getStringsList().forEach(x -> v.add(quoted(x.toStringUtf8())));
                return "[" + String.join(",", v) + "]";
            }
            case TENSOR: {
                List<String> v = new ArrayList<>();
                a.getT().getDimsList().forEach(x -> v.add(Long.toString(x)));
                return "tensor[" + String.join(",", v) + "]";
            }
            case GRAPH:
                return "graph";
            default:
                return "?";
        }
    }

    /** A float in the shortest digits that read back as it: 1e-05, 0.5, 1.0, -inf, nan. */
    static String floatText(float f) {
        if (Float.isNaN(f)) {
            return "nan";
        }
        if (Float.isInfinite(f)) {
            return f > 0 ? "inf" : "-inf";
        }
        String s = Float.toString(f);
        int e = s.indexOf('E');
        if (e < 0) {
            return s;
        }
        String mantissa = s.substring(0, e).replaceAll("\\.0$", "");
        int exp = Integer.parseInt(s.substring(e + 1));
        return mantissa + (exp < 0 ? "e-" : "e+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
    }

    /** A name written as it is: not empty, no white space, quote, backslash, '·' or '#'. */
    private static boolean bare(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (Character.isWhitespace(ch) || ch == '"' || ch == '·' || ch == '\\' || ch == '#') {
                return false;
            }
        }
        return true;
    }

    private static String quoted(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(ch);
            }
        }
        return sb.append('"').toString();
    }

    // ---- reading ----------------------------------------------------------------------------------

    /** Reads the comment's grammar from the left. */
    private static final class Reader {
        private final String s;
        private int at;

        Reader(String s) {
            this.s = s;
        }

        boolean atEnd() {
            return at == s.length();
        }

        boolean take(String t) {
            if (s.startsWith(t, at)) {
                at += t.length();
                return true;
            }
            return false;
        }

        /** A bare name (up to the separator or white space) or a quoted one. */
        String name() {
            if (at < s.length() && s.charAt(at) == '"') {
                return quoted();
            }
            int start = at;
            while (at < s.length() && !Character.isWhitespace(s.charAt(at)) && s.charAt(at) != '"' && s.charAt(at) != '·') {
                at++;
            }
            return at == start ? null : s.substring(start, at);
        }

        String identifier() {
            int start = at;
            while (at < s.length() && (Character.isLetterOrDigit(s.charAt(at)) || s.charAt(at) == '_' || s.charAt(at) == '.')) {
                at++;
            }
            return at == start ? null : s.substring(start, at);
        }

        /** A quoted string's contents, unescaped; null when it does not close. */
        String quoted() {
            StringBuilder sb = new StringBuilder();
            at++;
            while (at < s.length()) {
                char ch = s.charAt(at++);
                if (ch == '"') {
                    return sb.toString();
                }
                if (ch == '\\' && at < s.length()) {
                    char e = s.charAt(at++);
                    sb.append(switch (e) {
                        case 'n' -> '\n';
                        case 'r' -> '\r';
                        case 't' -> '\t';
                        default -> e;
                    });
                } else {
                    sb.append(ch);
                }
            }
            return null;
        }

        /** A value as written: up to the next space outside quotes and brackets. */
        String value() {
            int start = at;
            int depth = 0;
            while (at < s.length()) {
                char ch = s.charAt(at);
                if (ch == '"') {
                    if (quoted() == null) {
                        return null;
                    }
                    continue;
                }
                if (ch == '[') {
                    depth++;
                } else if (ch == ']') {
                    depth--;
                } else if (ch == ' ' && depth == 0) {
                    break;
                }
                at++;
            }
            return at == start || depth != 0 ? null : s.substring(start, at);
        }
    }
}
