package io.gradscope.app.layout;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lays out a wide level as a grid. The sections of a wide graph (many parallel branches of one
 * input, summed at the end) all hang off the first section and feed the last, so a layered layout
 * puts them side by side in one layer: at Fit, a thin row of boxes too small to read. Opened, the
 * summing tree at its end is a level of plain nodes with 80 in its first layer: the same thin row.
 * A level with a layer of more than {@link #MAX_ROW} boxes (all its items boxes: sections, collapsed
 * groups, expanded containers) or of more than {@link #MAX_NODE_ROW} items (plain nodes among them)
 * is laid out in layers as a layered layout is, top to bottom, but each layer wrapped into rows of at
 * most as many items as the grid has columns, in program order, the columns chosen so that the whole
 * is about as wide as tall. Routes are orthogonal and run through the gaps between rows and the
 * gutters between columns, never across an item: down from the source to the gap below its row,
 * along it to the gutter left of the target's column, along the gutter to the gap above the target's
 * row, and along that to the target. The level's own in-ports are on the left margin, its out-ports
 * on the right. Linear in the items and edges (the choice of columns: in the items times the layers).
 */
final class WideLayers {
    /** A layer with more boxes than this is wide. */
    static final int MAX_ROW = 5;
    /** A layer with more items than this, plain nodes among them, is wide (ELK draws up to this many nodes in a row readably). */
    static final int MAX_NODE_ROW = 12;
    /**
     * The same for an opened section of a long program: it stands among folded sections, so a row of
     * 12 nodes (1,500 px: the top of the wide program's summing tree) shrank them all past reading at Fit.
     */
    static final int MAX_SECTION_ROW = 8;
    /** A section whose layered layout would have more layers than this, and be this many times taller than wide, is tall. */
    static final int TALL_LAYERS = 8;
    static final double TALL = 2;
    /** The width to height ratio aimed at (the graph panel is about square). */
    static final double ASPECT = 1.0;
    static final double GAP_X = 48;
    static final double GAP_Y = 40;
    static final double PAD = ContainerLayout.PAD;
    static final double TITLE = ContainerLayout.TITLE;
    /** The margins on the left and right where the routes from the level's ports run, and above the first row. */
    static final double MARGIN = 28;
    /** How far apart parallel routes are drawn. */
    static final double SPREAD = 3;

    private WideLayers() {
    }

    /** The grid layout of {@code level}, or null when it is neither a wide level nor a tall section. */
    static ContainerLayout.Inner layout(ContainerLayout.Level level) {
        List<ContainerLayout.Item> items = level.items();
        int n = items.size();
        boolean boxes = items.stream().allMatch(it -> it.box() && !it.top());
        int[] layer = n <= MAX_ROW ? null : layers(level);
        if (layer == null) {
            return null;
        }
        int top = 0;
        for (int l : layer) {
            top = Math.max(top, l);
        }
        // Layers top to bottom (the highest first), each in program order.
        int[] perLayer = new int[top + 1];
        for (int l : layer) {
            perLayer[top - l]++;
        }
        double meanW = items.stream().mapToDouble(ContainerLayout.Item::w).average().orElse(0);
        double meanH = items.stream().mapToDouble(ContainerLayout.Item::h).average().orElse(0);
        int[] row = new int[n];
        int[] col = new int[n];
        int[] placed = new int[top + 1];
        if (widest(layer) > (boxes ? MAX_ROW : level.section() ? MAX_SECTION_ROW : MAX_NODE_ROW)) {
            if (boxes) {
                // A level of boxes (a wide program's sections) reads row by row in program order, as it was
                // written, whatever their layers: by layer, "lines 210-418" came before "lines 1-209".
                java.util.Arrays.fill(layer, 0);
                top = 0;
                perLayer = new int[] {n};
                placed = new int[1];
            }
            // Wide: each layer wrapped into rows of at most cols items.
            int cols = columns(perLayer, meanW, meanH);
            int[] firstRow = new int[top + 1];
            int rows = 0;
            for (int l = 0; l <= top; l++) {
                firstRow[l] = rows;
                rows += (perLayer[l] + cols - 1) / cols;
            }
            for (int k = 0; k < n; k++) {
                int l = top - layer[k];
                row[k] = firstRow[l] + placed[l] / cols;
                col[k] = placed[l] % cols;
                placed[l]++;
            }
            return grid(level, row, col, rows, cols);
        }
        // A tall section, or a tall top level (resnet18's outline: 14 folded modules one under another,
        // a thin column at Fit in a wide pane; a long program's outline of folded sections that are no
        // strict chain, for RunGrid to take), is wrapped into bands side by side.
        if (!(level.section() || !level.titled()) || boxes && level.titled() || !tall(perLayer, meanW, meanH)) {
            return null;
        }
        // Tall: the layers in bands of {@code rows} side by side, each band as many columns wide as its widest layer.
        int rows = bandRows(perLayer, meanW, meanH);
        int[] firstCol = new int[top + 1];
        int cols = 0;
        for (int b = 0; b * rows <= top; b++) {
            int widest = 0;
            for (int l = b * rows; l < Math.min(top + 1, (b + 1) * rows); l++) {
                firstCol[l] = cols;
                widest = Math.max(widest, perLayer[l]);
            }
            cols += widest;
        }
        for (int k = 0; k < n; k++) {
            int l = top - layer[k];
            row[k] = l % rows;
            col[k] = firstCol[l] + placed[l]++;
        }
        return grid(level, row, col, rows, cols);
    }

    /** Whether a layered layout of these layers would be much taller than wide (a long chain of nodes). */
    static boolean tall(int[] perLayer, double meanW, double meanH) {
        int widest = 0;
        for (int c : perLayer) {
            widest = Math.max(widest, c);
        }
        return perLayer.length > TALL_LAYERS && perLayer.length * (meanH + GAP_Y) > TALL * widest * (meanW + GAP_X);
    }

    /** How many layers a band of a tall level holds, so that the bands side by side are about {@link #ASPECT} times as wide as tall. */
    static int bandRows(int[] perLayer, double meanW, double meanH) {
        int best = perLayer.length;
        double bestMiss = Double.MAX_VALUE;
        for (int rows = 2; rows <= perLayer.length; rows++) {
            double width = 0;
            for (int b = 0; b * rows < perLayer.length; b++) {
                int widest = 0;
                for (int l = b * rows; l < Math.min(perLayer.length, (b + 1) * rows); l++) {
                    widest = Math.max(widest, perLayer[l]);
                }
                width += widest * (meanW + GAP_X);
            }
            double miss = Math.abs(Math.log(width / (rows * (meanH + GAP_Y)) / ASPECT));
            if (miss < bestMiss) {
                bestMiss = miss;
                best = rows;
            }
        }
        return best;
    }

    /** Items at the given rows and columns of a grid, with routes through its gaps and gutters. */
    private static ContainerLayout.Inner grid(ContainerLayout.Level level, int[] row, int[] col, int rows, int cols) {
        List<ContainerLayout.Item> items = level.items();
        int n = items.size();
        // Rows and columns each as high and wide as their own largest item: one opened section makes its
        // row and column larger, not every cell of the grid (which left the others unreadable at Fit).
        double[] colW = new double[cols];
        double[] rowH = new double[rows];
        for (int k = 0; k < n; k++) {
            colW[col[k]] = Math.max(colW[col[k]], items.get(k).w());
            rowH[row[k]] = Math.max(rowH[row[k]], items.get(k).h());
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
            at[k] = new double[] {colX[col[k]] + (colW[col[k]] - items.get(k).w()) / 2, rowY[row[k]]};
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
        Map<List<Double>, Integer> lanes = new HashMap<>();
        for (int i = 0; i < routes.length; i++) {
            ContainerLayout.Edge e = level.edges().get(i);
            // Edges between the same two points (the values a folded section sends into one port) share
            // a route: one line, not a band of parallel ones.
            double shift = SPREAD * (lanes.computeIfAbsent(ends(items, at, e), key -> lanes.size()) % 5);
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
                double below = rowY[row[from]] + rowH[row[from]] + GAP_Y / 2 - shift;
                double above = iy - GAP_Y / 2 + shift;
                if (row[to] == row[from] + 1) {
                    RunGrid.add(pts, ox, oy, ox, below, ix, below, ix, iy); // the next row: through the gap between
                } else {
                    double gutter = colX[col[to]] - GAP_X / 2 + shift;
                    RunGrid.add(pts, ox, oy, ox, below, gutter, below, gutter, above, ix, above, ix, iy);
                }
            }
            routes[i] = pts.toArray(new double[0][]);
        }
        return new ContainerLayout.Inner(w, h, at, inX, outX, routes);
    }

    /** The number of columns that makes the grid about {@link #ASPECT} times as wide as tall. */
    static int columns(int[] perLayer, double meanW, double meanH) {
        int widest = 0;
        for (int c : perLayer) {
            widest = Math.max(widest, c);
        }
        int best = 1;
        double bestMiss = Double.MAX_VALUE;
        for (int cols = 1; cols <= widest; cols++) {
            int rows = 0;
            for (int c : perLayer) {
                rows += (c + cols - 1) / cols;
            }
            double aspect = cols * (meanW + GAP_X) / (rows * (meanH + GAP_Y));
            double miss = Math.abs(Math.log(aspect / ASPECT));
            if (miss < bestMiss) {
                bestMiss = miss;
                best = cols;
            }
        }
        return Math.max(Math.min(2, widest), best);
    }

    /** Where an edge starts and ends (an own port by its number). */
    private static List<Double> ends(List<ContainerLayout.Item> items, double[][] at, ContainerLayout.Edge e) {
        boolean in = e.from() == ContainerLayout.End.OWN_IN;
        boolean out = e.to() == ContainerLayout.End.OWN_OUT;
        double fx = in ? -1 - e.fromPort() : RunGrid.outPoint(items, at, e.fromItem(), e.from(), e.fromPort());
        double fy = in ? -1 : e.fromItem();
        double tx = out ? -1 - e.toPort() : RunGrid.inPoint(items, at, e.toItem(), e.to(), e.toPort());
        double ty = out ? -1 : e.toItem();
        return List.of(fx, fy, tx, ty);
    }

    /** The most items in one layer. */
    private static int widest(int[] layer) {
        Map<Integer, Integer> count = new HashMap<>();
        int most = 0;
        for (int l : layer) {
            most = Math.max(most, count.merge(l, 1, Integer::sum));
        }
        return most;
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
