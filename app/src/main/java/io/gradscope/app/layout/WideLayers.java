package io.gradscope.app.layout;

import java.util.ArrayList;
import java.util.List;

/**
 * Lays out a wide level of boxes as a grid. The sections of a wide graph (many parallel branches of
 * one input, summed at the end) all hang off the first section and feed the last, so a layered
 * layout puts them side by side in one layer: at Fit, a thin row of boxes too small to read. A level
 * whose items are all boxes (sections, collapsed groups, expanded containers), with a layer of more
 * than {@link #MAX_ROW} of them, is instead laid out in rows in program order, about as wide as
 * tall, with orthogonal routes that run through the gaps between rows and the gutters between
 * columns, never across a box: down from the source to the gap below its row, along it to the
 * gutter left of the target's column, along the gutter to the gap above the target's row, and
 * along that to the target. The level's own in-ports are on the left margin, its out-ports on the
 * right. Linear in the items and edges.
 */
final class WideLayers {
    /** A layer with more boxes than this is wide. */
    static final int MAX_ROW = 5;
    /** The width to height ratio aimed at (the graph panel is about square). */
    static final double ASPECT = 1.0;
    static final double GAP_X = 48;
    static final double GAP_Y = 40;
    static final double PAD = 14;
    /** The title's room at the top of a titled container. */
    static final double TITLE = 30;
    /** The margins on the left and right where the routes from the level's ports run, and above the first row. */
    static final double MARGIN = 28;
    /** How far apart parallel routes are drawn. */
    static final double SPREAD = 3;

    private WideLayers() {
    }

    /** The grid layout of {@code level}, or null when it is not a wide level of boxes. */
    static ContainerLayout.Inner layout(ContainerLayout.Level level) {
        List<ContainerLayout.Item> items = level.items();
        int n = items.size();
        if (n <= MAX_ROW || !items.stream().allMatch(it -> it.box() && !it.top()) || !wide(level)) {
            return null;
        }
        // Rows and columns each as high and wide as their own largest box: one opened section makes its
        // row and column larger, not every cell of the grid (which left the others unreadable at Fit).
        double meanW = items.stream().mapToDouble(ContainerLayout.Item::w).average().orElse(0);
        double meanH = items.stream().mapToDouble(ContainerLayout.Item::h).average().orElse(0);
        int cols = (int) Math.max(2, Math.ceil(Math.sqrt(ASPECT * n * (meanH + GAP_Y) / (meanW + GAP_X))));
        int rows = (n + cols - 1) / cols;
        double[] colW = new double[cols];
        double[] rowH = new double[rows];
        for (int k = 0; k < n; k++) {
            colW[k % cols] = Math.max(colW[k % cols], items.get(k).w());
            rowH[k / cols] = Math.max(rowH[k / cols], items.get(k).h());
        }
        double[] colX = new double[cols];
        double x = MARGIN;
        for (int c = 0; c < cols; c++) {
            colX[c] = x;
            x += colW[c] + GAP_X;
        }
        double[] rowY = new double[rows];
        double y = (level.titled() ? TITLE : PAD) + MARGIN;
        for (int r = 0; r < rows; r++) {
            rowY[r] = y;
            y += rowH[r] + GAP_Y;
        }
        double w = x - GAP_X + MARGIN;
        double h = y - GAP_Y + MARGIN;
        double[][] at = new double[n][];
        for (int k = 0; k < n; k++) {
            at[k] = new double[] {colX[k % cols] + (colW[k % cols] - items.get(k).w()) / 2, rowY[k / cols]};
        }
        double[] inX = new double[level.inPorts()];
        for (int p = 0; p < inX.length; p++) {
            inX[p] = MARGIN / 2 - SPREAD * (p % 4);
        }
        double[] outX = new double[level.outPorts()];
        for (int p = 0; p < outX.length; p++) {
            outX[p] = w - MARGIN / 2 + SPREAD * (p % 4);
        }
        double[][][] routes = new double[level.edges().size()][][];
        for (int i = 0; i < routes.length; i++) {
            ContainerLayout.Edge e = level.edges().get(i);
            double shift = SPREAD * (i % 5);
            List<double[]> pts = new ArrayList<>();
            if (e.from() == ContainerLayout.End.OWN_IN) {
                int to = e.toItem();
                double above = at[to][1] - GAP_Y / 2 + shift;
                double ix = RunGrid.inPoint(items, at, to, e.to(), e.toPort());
                RunGrid.add(pts, inX[e.fromPort()], 0, inX[e.fromPort()], above, ix, above, ix, at[to][1]);
            } else if (e.to() == ContainerLayout.End.OWN_OUT) {
                int from = e.fromItem();
                double oy = at[from][1] + items.get(from).h();
                double below = oy + GAP_Y / 2 - shift;
                double ox = RunGrid.outPoint(items, at, from, e.from(), e.fromPort());
                RunGrid.add(pts, ox, oy, ox, below, outX[e.toPort()], below, outX[e.toPort()], h);
            } else {
                int from = e.fromItem();
                int to = e.toItem();
                double ox = RunGrid.outPoint(items, at, from, e.from(), e.fromPort());
                double oy = at[from][1] + items.get(from).h();
                double ix = RunGrid.inPoint(items, at, to, e.to(), e.toPort());
                double iy = at[to][1];
                double below = rowY[from / cols] + rowH[from / cols] + GAP_Y / 2 - shift;
                double above = iy - GAP_Y / 2 + shift;
                if (to / cols == from / cols + 1) {
                    RunGrid.add(pts, ox, oy, ox, below, ix, below, ix, iy); // the next row: through the gap between
                } else {
                    double gutter = colX[to % cols] - GAP_X / 2 + shift;
                    RunGrid.add(pts, ox, oy, ox, below, gutter, below, gutter, above, ix, above, ix, iy);
                }
            }
            routes[i] = pts.toArray(new double[0][]);
        }
        return new ContainerLayout.Inner(w, h, at, inX, outX, routes);
    }

    /** Whether some layer of the level holds more than {@link #MAX_ROW} items. */
    private static boolean wide(ContainerLayout.Level level) {
        int[] layer = layers(level);
        if (layer == null) {
            return false;
        }
        java.util.Map<Integer, Integer> count = new java.util.HashMap<>();
        for (int l : layer) {
            if (count.merge(l, 1, Integer::sum) > MAX_ROW) {
                return true;
            }
        }
        return false;
    }

    /**
     * Each item's layer counted back from the sinks (the longest path from it to an item nothing
     * follows): the parallel sections of a wide graph all sit in the layer above what they feed,
     * wherever they start. Null on a cycle.
     */
    private static int[] layers(ContainerLayout.Level level) {
        int n = level.items().size();
        List<List<Integer>> before = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            before.add(new ArrayList<>());
        }
        int[] out = new int[n];
        for (ContainerLayout.Edge e : level.edges()) {
            boolean fromItem = e.from() == ContainerLayout.End.NODE || e.from() == ContainerLayout.End.CHILD_OUT;
            boolean toItem = e.to() == ContainerLayout.End.NODE || e.to() == ContainerLayout.End.CHILD_IN;
            if (fromItem && toItem && e.fromItem() != e.toItem()) {
                before.get(e.toItem()).add(e.fromItem());
                out[e.fromItem()]++;
            }
        }
        int[] height = new int[n];
        int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        for (int i = 0; i < n; i++) {
            if (out[i] == 0) {
                queue[tail++] = i;
            }
        }
        while (head < tail) {
            int i = queue[head++];
            for (int j : before.get(i)) {
                height[j] = Math.max(height[j], height[i] + 1);
                if (--out[j] == 0) {
                    queue[tail++] = j;
                }
            }
        }
        return tail == n ? height : null;
    }
}
