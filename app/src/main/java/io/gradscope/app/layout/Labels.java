package io.gradscope.app.layout;

import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.trace.TraceGraph;

/** What a vertex's box says: in full, and briefly (when the drawing is too small for the full text). */
public final class Labels {
    private Labels() {
    }

    /**
     * Read like the program: "h = relu [4, 2]" for a named op, "relu [4, 2]" for an unnamed one,
     * "W [3, 2]" for a leaf (its colour says which kind). Long op attributes are cut.
     */
    public static String full(TraceGraph.Vertex v) {
        String shape = Shapes.str(v.value().shape());
        return switch (v.kind()) {
            case INPUT, PARAM, LABELS -> v.name() + " " + shape;
            default -> v.name() != null ? v.name() + " = " + op(v) + " " + shape : op(v) + " " + shape;
        };
    }

    /** The name, else the op: "h", "relu". */
    public static String brief(TraceGraph.Vertex v) {
        return v.name() != null ? v.name() : op(v);
    }

    private static String op(TraceGraph.Vertex v) {
        String op = v.op();
        int paren = op.indexOf('(');
        return op.length() > 14 && paren > 0 ? op.substring(0, paren) : op;
    }
}
