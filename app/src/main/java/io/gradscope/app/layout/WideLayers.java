package io.gradscope.app.layout;

import java.util.ArrayList;
import java.util.List;

/**
 * Wraps a wide layer of boxes into rows. The sections of a wide graph (many parallel branches of
 * one input, summed at the end) all hang off the first section and feed the last, so a layered
 * layout puts them side by side in one layer: at Fit, a thin row of boxes too small to read. Here
 * a layer of more than {@link #MAX_ROW} boxes (sections, collapsed groups, expanded containers; not
 * single nodes, which the layered layout places by their neighbours) is cut into rows of about as
 * many boxes as there are rows, in program order, and each box of a row gets an edge, never drawn,
 * from the box above it: the layered layout then gives each row a layer of its own, keeps the boxes
 * of a layer in program order, and routes the real edges around the boxes as usual.
 */
final class WideLayers {
    /** A layer with more boxes than this is wrapped. */
    static final int MAX_ROW = 5;
    /** The width to height ratio aimed at for a wrapped layer (the graph panel is about square). */
    static final double ASPECT = 1.0;
    /** The gaps the layered layout leaves between boxes of a layer and between layers (ContainerLayout's spacing). */
    static final double GAP_X = 24;
    static final double GAP_Y = 36;

    private WideLayers() {
    }

    /** The edges that wrap the level's wide layers, as {@code {from item, to item}} (none when no layer is wide). */
    static List<int[]> wrapping(ContainerLayout.Level level) {
        List<ContainerLayout.Item> items = level.items();
        int n = items.size();
        List<int[]> out = new ArrayList<>();
        if (n <= MAX_ROW) {
            return out;
        }
        int[] layer = layers(level);
        if (layer == null) {
            return out;
        }
        int depth = 0;
        for (int l : layer) {
            depth = Math.max(depth, l + 1);
        }
        for (int l = 0; l < depth; l++) {
            List<Integer> boxes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (layer[i] == l && items.get(i).box() && !items.get(i).top()) {
                    boxes.add(i); // in program order: the items are
                }
            }
            if (boxes.size() <= MAX_ROW) {
                continue;
            }
            double w = 0;
            double h = 0;
            for (int i : boxes) {
                w = Math.max(w, items.get(i).w());
                h = Math.max(h, items.get(i).h());
            }
            // About as many rows as it takes for the rows to be ASPECT times as wide as they are tall.
            int perRow = (int) Math.max(2, Math.min(MAX_ROW, Math.ceil(Math.sqrt(ASPECT * boxes.size() * (h + GAP_Y) / (w + GAP_X)))));
            for (int k = perRow; k < boxes.size(); k++) {
                out.add(new int[] {boxes.get(k - perRow), boxes.get(k)});
            }
        }
        return out;
    }

    /** Each item's layer by the longest path to it along the level's edges between items; null on a cycle. */
    private static int[] layers(ContainerLayout.Level level) {
        int n = level.items().size();
        List<List<Integer>> next = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            next.add(new ArrayList<>());
        }
        int[] in = new int[n];
        for (ContainerLayout.Edge e : level.edges()) {
            boolean fromItem = e.from() == ContainerLayout.End.NODE || e.from() == ContainerLayout.End.CHILD_OUT;
            boolean toItem = e.to() == ContainerLayout.End.NODE || e.to() == ContainerLayout.End.CHILD_IN;
            if (fromItem && toItem && e.fromItem() != e.toItem()) {
                next.get(e.fromItem()).add(e.toItem());
                in[e.toItem()]++;
            }
        }
        int[] layer = new int[n];
        int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        for (int i = 0; i < n; i++) {
            if (in[i] == 0) {
                queue[tail++] = i;
            }
        }
        while (head < tail) {
            int i = queue[head++];
            for (int j : next.get(i)) {
                layer[j] = Math.max(layer[j], layer[i] + 1);
                if (--in[j] == 0) {
                    queue[tail++] = j;
                }
            }
        }
        return tail == n ? layer : null;
    }
}
