package io.gradscope.engine.lang;

import io.gradscope.engine.ops.OpSpec;
import io.gradscope.engine.ops.OpSpecs;

/**
 * The function table of docs/PROGRAM-FORMAT.md, written from the op specs (a test keeps the file
 * equal to it, and rewrites it when run with {@code -Dgradscope.writeDocs=true}).
 */
public final class FunctionTable {
    /** The lines that enclose the generated table in the docs. */
    public static final String BEGIN = "<!-- function table: generated from the op specs (OpSpecs.java); do not edit -->";
    public static final String END = "<!-- end of function table -->";

    private FunctionTable() {
    }

    /** One row per function a program calls, in the order the specs are declared. */
    public static String markdown() {
        StringBuilder sb = new StringBuilder("| function | PyTorch |\n| --- | --- |\n");
        for (OpSpec s : OpSpecs.all()) {
            if (!s.callable()) {
                continue;
            }
            String call = s.allOrNone().isEmpty() ? "`" + s.signature() + "`" : "`" + s.usage().replace(" or ", "` / `") + "`";
            sb.append("| ").append(call).append(" | `").append(s.torch()).append('`');
            if (!s.note().isEmpty()) {
                sb.append(" (").append(s.note()).append(')');
            }
            sb.append(" |\n");
        }
        return sb.toString();
    }

    /** {@code doc} with the text between {@link #BEGIN} and {@link #END} replaced by the table. */
    public static String update(String doc) {
        int b = doc.indexOf(BEGIN);
        int e = doc.indexOf(END);
        if (b < 0 || e < b) {
            throw new IllegalArgumentException("the document has no generated function table (" + BEGIN + ")");
        }
        return doc.substring(0, b + BEGIN.length()) + "\n" + markdown() + doc.substring(e);
    }
}
