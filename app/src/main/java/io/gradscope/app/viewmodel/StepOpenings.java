package io.gradscope.app.viewmodel;

import io.gradscope.app.layout.GraphLayout;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The folded sections stepping opened. A step whose node is inside folded sections opens them (as
 * Find does), so the node is drawn, not the outline of its section; once the steps have left a
 * section they opened, it folds back, so that stepping through a long program does not leave it
 * open everywhere. A section the user folds or opens is the user's from then on.
 */
final class StepOpenings {
    private final Set<String> opened = new HashSet<>();

    /** The folded containers after a step to {@code vertex} (-1: none), or null when they stay as they are. */
    Set<String> after(GraphLayout.Result r, int vertex) {
        List<String> holding = vertex < 0 ? List.of() : r.source().hierarchy().chain(vertex);
        Set<String> next = new HashSet<>(r.collapsed());
        boolean changed = false;
        for (Iterator<String> it = opened.iterator(); it.hasNext();) {
            String c = it.next();
            if (!holding.contains(c)) {
                it.remove();
                changed |= next.add(c);
            }
        }
        for (String c : holding) {
            if (next.remove(c)) {
                opened.add(c);
                changed = true;
            }
        }
        return changed ? next : null;
    }

    /** The user folded or opened {@code path}: stepping leaves it as the user set it. */
    void forget(String path) {
        opened.remove(path);
    }

    /** A new run, or every container folded or opened at once. */
    void clear() {
        opened.clear();
    }
}
