package io.gradscope.engine.trace;

import java.util.List;

/**
 * Where in a program an event comes from: the line and column of the expression (0 when the event
 * does not come from a program), the enclosing {@code with group(...)} blocks (outermost first) and
 * the innermost {@code with checkpoint()} segment (its number in the program, from 0; -1 outside any).
 *
 * <pre>{@code
 * Source s = opForward.source();
 * String where = s.line() > 0 ? "line " + s.line() : "not from a program";
 * }</pre>
 */
public record Source(int line, int column, List<String> groups, int segment) {
    /** No program position, no group, no segment. */
    public static final Source NONE = new Source(0, 0, List.of(), -1);

    public Source {
        groups = List.copyOf(groups);
    }
}
