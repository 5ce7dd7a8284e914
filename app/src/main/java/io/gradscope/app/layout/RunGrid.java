package io.gradscope.app.layout;

import java.util.ArrayList;
import java.util.List;

/**
 * The layout of a run of blocks that form a chain (each block feeds the next, values enter the
 * first and leave the last): the blocks in columns, top to bottom, then the next column, sized to
 * be about as wide as tall (each block at its own height, so one opened block does not stretch every
 * row), with orthogonal routes (between blocks of a column through the gap
 * below; from a column's foot up the gutter to the next column's head). Linear in the number of
 * blocks, with no crossings; 2,000 blocks in a few milliseconds where ELK would take seconds and
 * draw one thin column. Other runs are left to ELK.
 */
final class RunGrid {
    static final double PAD = ContainerLayout.PAD;
    static final double TITLE = ContainerLayout.TITLE;
    static final double GAP_X = 56;
    static final double GAP_Y = 36;
    /** Room above the first row and below the last for the routes that wrap. */
    static final double LANE = 22;
    /** The width to height ratio aimed at. */
    static final double ASPECT = 1.0;

    private RunGrid() {
    }

    /** The grid layout, or null when the level is not a chain. */
    static ContainerLayout.Inner layout(ContainerLayout.Level level) {
        List<ContainerLayout.Item> items = level.items();
        int n = items.size();
        if (n < 2) {
            return null;
        }
        for (ContainerLayout.Edge e : level.edges()) {
            boolean ok = switch (e.from()) {
                case OWN_IN -> e.toItem() == 0 && e.to() != ContainerLayout.End.OWN_OUT;
                case NODE, CHILD_OUT -> e.to() == ContainerLayout.End.OWN_OUT ? e.fromItem() == n - 1 : e.toItem() == e.fromItem() + 1;
                default -> false;
            };
            if (!ok) {
                return null;
            }
        }
        // Columns are filled in order, each up to the height aimed at, every block at its own height: one
        // opened block (a section shown with its members) takes the room it needs, not every cell's. The
        // number of columns aimed at is the one whose grid is closest to square (tried: with one large
        // block, the widest block's width over every column made one thin column of 16 sections).
        double sumH = 0;
        for (ContainerLayout.Item it : items) {
            sumH += it.h() + GAP_Y;
        }
        double maxW = 0;
        for (ContainerLayout.Item it : items) {
            maxW = Math.max(maxW, it.w());
        }
        int estimate = (int) Math.max(1, Math.min(n, Math.round(Math.sqrt(ASPECT * sumH / (maxW + GAP_X)))));
        Fill fill = null;
        double miss = Double.MAX_VALUE;
        for (int i = 0; i <= Math.min(n, MAX_AIM); i++) {
            int aim = i == 0 ? estimate : i;
            Fill f = fill(items, sumH / aim);
            double m = Math.abs(Math.log(f.width() / f.height() / ASPECT));
            if (m < miss - 1e-9) {
                miss = m;
                fill = f;
            }
        }
        int[] colOf = fill.colOf();
        double[] y = fill.y();
        List<Double> colWidths = fill.colWidths();
        double tallest = fill.tallest();
        double top = TITLE + LANE;
        int cols = colWidths.size();
        double[] colX = new double[cols];
        double right = PAD;
        for (int c = 0; c < cols; c++) {
            colX[c] = right;
            right += colWidths.get(c) + GAP_X;
        }
        double w = right - GAP_X + PAD;
        double h = top + tallest + LANE + PAD;
        double[][] at = new double[n][];
        for (int k = 0; k < n; k++) {
            at[k] = new double[] {colX[colOf[k]] + (colWidths.get(colOf[k]) - items.get(k).w()) / 2, y[k]};
        }
        double[] inX = new double[level.inPorts()];
        double[] outX = new double[level.outPorts()];
        double[][][] routes = new double[level.edges().size()][][];
        int[] between = new int[n];
        for (int i = 0; i < routes.length; i++) {
            ContainerLayout.Edge e = level.edges().get(i);
            List<double[]> pts = new ArrayList<>();
            if (e.from() == ContainerLayout.End.OWN_IN) {
                double x = inPoint(items, at, e.toItem(), e.to(), e.toPort());
                inX[e.fromPort()] = x;
                pts.add(new double[] {x, 0});
                pts.add(new double[] {x, at[e.toItem()][1]});
            } else if (e.to() == ContainerLayout.End.OWN_OUT) {
                double x = outPoint(items, at, e.fromItem(), e.from(), e.fromPort());
                outX[e.toPort()] = x;
                pts.add(new double[] {x, at[e.fromItem()][1] + items.get(e.fromItem()).h()});
                pts.add(new double[] {x, h});
            } else {
                int k = e.fromItem();
                double ox = outPoint(items, at, k, e.from(), e.fromPort());
                double oy = at[k][1] + items.get(k).h();
                double ix = inPoint(items, at, k + 1, e.to(), e.toPort());
                double iy = at[k + 1][1];
                double shift = 4 * between[k]++;
                if (colOf[k + 1] == colOf[k]) {
                    double mid = oy + GAP_Y / 2 - shift;
                    add(pts, ox, oy, ox, mid, ix, mid, ix, iy);
                } else {
                    // From the foot of a column, along the gutter, to the head of the next.
                    double foot = top + tallest + LANE / 2 + shift;
                    double gutter = colX[colOf[k]] + colWidths.get(colOf[k]) + GAP_X / 2 + shift;
                    double head = top - LANE / 2 - shift;
                    add(pts, ox, oy, ox, foot, gutter, foot, gutter, head, ix, head, ix, iy);
                }
            }
            routes[i] = pts.toArray(new double[0][]);
        }
        return new ContainerLayout.Inner(w, h, at, inX, outX, routes);
    }

    /** At most this many column counts are tried. */
    static final int MAX_AIM = 64;

    /** Blocks filled into columns of about {@code target} height: each block's column and top, the columns' widths. */
    private record Fill(int[] colOf, double[] y, List<Double> colWidths, double tallest) {
        double width() {
            return colWidths.stream().mapToDouble(Double::doubleValue).sum() + GAP_X * (colWidths.size() - 1) + 2 * PAD;
        }

        double height() {
            return TITLE + 2 * LANE + tallest + PAD;
        }
    }

    private static Fill fill(List<ContainerLayout.Item> items, double target) {
        int n = items.size();
        int[] colOf = new int[n];
        List<Double> colWidths = new ArrayList<>();
        double[] y = new double[n];
        double top = TITLE + LANE;
        double used = 0;
        double tallest = 0;
        for (int k = 0; k < n; k++) {
            double need = items.get(k).h() + GAP_Y;
            if (k > 0 && used > 0 && used + need > target * 1.05) {
                colWidths.add(0.0);
                used = 0;
            } else if (k == 0) {
                colWidths.add(0.0);
            }
            int c = colWidths.size() - 1;
            colOf[k] = c;
            y[k] = top + used;
            used += need;
            tallest = Math.max(tallest, used - GAP_Y);
            colWidths.set(c, Math.max(colWidths.get(c), items.get(k).w()));
        }
        return new Fill(colOf, y, colWidths, tallest);
    }

    /** Appends points to a route, skipping one equal to the last (shared with {@link WideLayers}). */
    static void add(List<double[]> pts, double... xy) {
        for (int i = 0; i < xy.length; i += 2) {
            double[] last = pts.isEmpty() ? null : pts.get(pts.size() - 1);
            if (last == null || Math.abs(last[0] - xy[i]) > 1e-9 || Math.abs(last[1] - xy[i + 1]) > 1e-9) {
                pts.add(new double[] {xy[i], xy[i + 1]});
            }
        }
    }

    static double inPoint(List<ContainerLayout.Item> items, double[][] at, int k, ContainerLayout.End end, int port) {
        ContainerLayout.Item it = items.get(k);
        return at[k][0] + (end == ContainerLayout.End.CHILD_IN ? it.child().inPortX()[port] : it.w() / 2);
    }

    static double outPoint(List<ContainerLayout.Item> items, double[][] at, int k, ContainerLayout.End end, int port) {
        ContainerLayout.Item it = items.get(k);
        return at[k][0] + (end == ContainerLayout.End.CHILD_OUT ? it.child().outPortX()[port] : it.w() / 2);
    }
}
