package io.gradscope.engine.jacobian;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Coloring a sparsity pattern for compressed evaluation: greedy in a chosen {@link VertexOrder}
 * (distance-1 on the conflict graph for column and row partitions, the star-coloring greedy of
 * Gebremedhin, Manne and Pothen for symmetric patterns), a validity check, a lower bound, and an
 * iterated-greedy recoloring pass that never does worse.
 *
 * <pre>{@code
 * Coloring c = Colorings.color(p, Coloring.Kind.COLUMN, VertexOrder.SMALLEST_LAST);
 * assert Colorings.isValid(p, c) && c.count() >= Colorings.lowerBound(p, Coloring.Kind.COLUMN);
 * Coloring better = Colorings.recolor(p, c, 20);
 * }</pre>
 */
public final class Colorings {
    /** The most edges a conflict graph may have (about 1.6 GB of indices). */
    static final long MAX_EDGES = 400_000_000L;

    private Colorings() {
    }

    /** Colors {@code p}'s columns, rows, or (symmetric p) indices, greedily in {@code order}. */
    public static Coloring color(Pattern p, Coloring.Kind kind, VertexOrder order) {
        Pattern g = conflictGraph(p, kind);
        if (complete(g)) {
            return distinct(kind, g.rows(), order.flag());
        }
        int[] colors = kind == Coloring.Kind.STAR ? star(g, order.order(g)) : greedy(g, order.order(g));
        return new Coloring(kind, colors, count(colors), order.flag());
    }

    /** Greedy colorings in every vertex order; the one with fewest colors (the first such in the order of the enum). */
    public static Coloring best(Pattern p, Coloring.Kind kind) {
        Pattern g = conflictGraph(p, kind);
        if (complete(g)) {
            return distinct(kind, g.rows(), VertexOrder.values()[0].flag());
        }
        int bound = lowerBound(p, kind);
        Coloring best = null;
        for (VertexOrder o : VertexOrder.values()) {
            int[] colors = kind == Coloring.Kind.STAR ? star(g, o.order(g)) : greedy(g, o.order(g));
            if (best == null || count(colors) < best.count()) {
                best = new Coloring(kind, colors, count(colors), o.flag());
            }
            if (best.count() <= bound) {
                break;
            }
        }
        return best;
    }

    /**
     * Whether every two vertices conflict (a dense Jacobian's columns, a dense Hessian): then each
     * needs its own color, which is also the lower bound, and no search can do better (the star
     * coloring's search costs n·d³, a minute for a dense 640 × 640 Hessian).
     */
    private static boolean complete(Pattern g) {
        long n = g.rows();
        return n > 1 && g.nnz() == n * (n - 1);
    }

    /** Every vertex its own color. */
    private static Coloring distinct(Coloring.Kind kind, int n, String order) {
        int[] colors = new int[n];
        Arrays.setAll(colors, i -> i);
        return new Coloring(kind, colors, n, order);
    }

    /**
     * The graph whose proper colorings are the valid partitions: for columns, two columns are
     * adjacent when some row holds both (the column intersection graph); for rows, the same on the
     * transpose; for a star coloring, the symmetric pattern itself. No diagonal.
     */
    public static Pattern conflictGraph(Pattern p, Coloring.Kind kind) {
        return switch (kind) {
            case COLUMN -> intersection(p);
            case ROW -> intersection(p.transpose());
            case STAR -> {
                requireSymmetric(p);
                yield withoutDiagonal(p);
            }
        };
    }

    private static void requireSymmetric(Pattern p) {
        if (!p.isSymmetric()) {
            throw new GradscopeException("star coloring needs a symmetric pattern (a Hessian's), but this "
                    + p.shape() + " pattern is not symmetric; use column or row coloring");
        }
    }

    /** Columns adjacent when they share a row. */
    private static Pattern intersection(Pattern p) {
        long edges = 0;
        for (int i = 0; i < p.rows(); i++) {
            edges += (long) p.rowCount(i) * p.rowCount(i);
        }
        if (edges > MAX_EDGES) {
            throw new GradscopeException("coloring this " + p.shape() + " pattern needs a conflict graph of up to " + edges
                    + " edges, more than " + MAX_EDGES + "; its rows are too dense for compression to pay");
        }
        return withoutDiagonal(p.transpose().times(p));
    }

    private static Pattern withoutDiagonal(Pattern p) {
        Pattern.Builder b = new Pattern.Builder(p.rows(), p.cols());
        for (int i = 0; i < p.rows(); i++) {
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                if (p.column(k) != i) {
                    b.add(p.column(k));
                }
            }
            b.endRow();
        }
        return b.build();
    }

    static int count(int[] colors) {
        int m = -1;
        for (int c : colors) {
            m = Math.max(m, c);
        }
        return m + 1;
    }

    /** Distance-1 greedy: each vertex in turn takes the smallest color no colored neighbor has. */
    static int[] greedy(Pattern g, int[] order) {
        int n = g.rows();
        int[] color = new int[n];
        Arrays.fill(color, -1);
        int[] forbidden = new int[n + 1];
        Arrays.fill(forbidden, -1);
        for (int v : order) {
            for (int q = g.rowStart(v); q < g.rowEnd(v); q++) {
                int c = color[g.column(q)];
                if (c >= 0) {
                    forbidden[c] = v;
                }
            }
            int c = 0;
            while (forbidden[c] == v) {
                c++;
            }
            color[v] = c;
        }
        return color;
    }

    /**
     * The greedy star coloring (Algorithm 4.1 of "What color is your Jacobian?"): besides the
     * neighbors' colors, v may not take the color of a vertex x two steps away through a neighbor w
     * when w is uncolored, or when w is colored and x has another neighbor of w's color (v, w, x
     * and that neighbor would make a two-colored path on four vertices).
     */
    static int[] star(Pattern g, int[] order) {
        long d = g.maxRowCount();
        return star(g, order, (long) g.rows() * d * d * d > STAR_WORK);
    }

    /**
     * The greedy distance-2 coloring: v takes no color of a vertex one or two steps away. It is a
     * star coloring too (a path on four vertices holds three colors), found in n·d² rather than
     * n·d³, so near-dense Hessians (where both need about n colors anyway) color in a second.
     */
    static int[] distanceTwo(Pattern g, int[] order) {
        return star(g, order, true);
    }

    /** The star coloring's greedy pass; with {@code distanceTwo}, every vertex two steps away is forbidden, no path looked for. */
    private static int[] star(Pattern g, int[] order, boolean distanceTwo) {
        int n = g.rows();
        int[] color = new int[n];
        Arrays.fill(color, -1);
        int[] forbidden = new int[n + 1];
        Arrays.fill(forbidden, -1);
        for (int v : order) {
            for (int q = g.rowStart(v); q < g.rowEnd(v); q++) {
                int w = g.column(q);
                if (color[w] >= 0) {
                    forbidden[color[w]] = v;
                }
                for (int r = g.rowStart(w); r < g.rowEnd(w); r++) {
                    int x = g.column(r);
                    if (x == v || color[x] < 0) {
                        continue;
                    }
                    if (distanceTwo || color[w] < 0) {
                        forbidden[color[x]] = v;
                    } else {
                        for (int s = g.rowStart(x); s < g.rowEnd(x); s++) {
                            int y = g.column(s);
                            if (y != w && color[y] == color[w]) {
                                forbidden[color[x]] = v;
                                break;
                            }
                        }
                    }
                }
            }
            int c = 0;
            while (forbidden[c] == v) {
                c++;
            }
            color[v] = c;
        }
        return color;
    }

    /** Past this much work (n·d³) the star coloring's search gives way to {@link #distanceTwo}. */
    static final long STAR_WORK = 2_000_000_000L;

    /**
     * Whether the coloring is valid for {@code p}: columns (rows) of one color share no row (column),
     * structurally orthogonal; a star coloring colors neighbors differently and leaves no path on
     * four indices with two colors.
     */
    public static boolean isValid(Pattern p, Coloring c) {
        return switch (c.kind()) {
            case COLUMN -> c.size() == p.cols() && distinctPerRow(p, c);
            case ROW -> c.size() == p.rows() && distinctPerRow(p.transpose(), c);
            case STAR -> c.size() == p.rows() && p.isSymmetric() && isStar(withoutDiagonal(p), c);
        };
    }

    private static boolean distinctPerRow(Pattern p, Coloring c) {
        int[] seen = new int[Math.max(c.count(), 1)];
        Arrays.fill(seen, -1);
        for (int i = 0; i < p.rows(); i++) {
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                int col = c.color(p.column(k));
                if (col < 0 || col >= c.count() || seen[col] == i) {
                    return false;
                }
                seen[col] = i;
            }
        }
        return true;
    }

    private static boolean isStar(Pattern g, Coloring c) {
        for (int v = 0; v < g.rows(); v++) {
            for (int q = g.rowStart(v); q < g.rowEnd(v); q++) {
                int w = g.column(q);
                if (c.color(v) == c.color(w)) {
                    return false;
                }
                // A path x - v - w - y on two colors: v has another neighbor of w's color and w one of v's.
                if (v < w && hasOther(g, v, w, c) && hasOther(g, w, v, c)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether {@code v} has a neighbor other than {@code w} with {@code w}'s color. */
    private static boolean hasOther(Pattern g, int v, int w, Coloring c) {
        for (int q = g.rowStart(v); q < g.rowEnd(v); q++) {
            int x = g.column(q);
            if (x != w && c.color(x) == c.color(w)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A lower bound on the colors any valid coloring needs. Columns: the most nonzeros in one row
     * (they all need different colors); rows: the most in one column. Star: the largest clique found
     * greedily in the pattern (at least 3 when the graph has a path on four vertices, which two
     * colors would leave bicolored); the most nonzeros in a row is not a bound for star colorings
     * (a star graph needs 2 colors, whatever its degree).
     */
    public static int lowerBound(Pattern p, Coloring.Kind kind) {
        return switch (kind) {
            case COLUMN -> p.maxRowCount();
            case ROW -> p.maxColumnCount();
            case STAR -> starBound(conflictGraph(p, kind));
        };
    }

    private static int starBound(Pattern g) {
        int best = g.rows() == 0 ? 0 : 1;
        boolean[] in = new boolean[g.rows()];
        for (int v : VertexOrder.LARGEST_FIRST.order(g)) {
            if (g.rowCount(v) < best) {
                break;
            }
            List<Integer> clique = new ArrayList<>(List.of(v));
            in[v] = true;
            for (int q = g.rowStart(v); q < g.rowEnd(v); q++) {
                int w = g.column(q);
                boolean all = true;
                for (int u : clique) {
                    all &= g.contains(w, u);
                }
                if (all) {
                    clique.add(w);
                    in[w] = true;
                }
            }
            clique.forEach(u -> in[u] = false);
            best = Math.max(best, clique.size());
        }
        if (best < 3 && hasPathOfFour(g)) {
            best = 3;
        }
        return best;
    }

    /** Some edge v - w where both ends have another neighbor (distinct, since a triangle also needs 3). */
    private static boolean hasPathOfFour(Pattern g) {
        for (int v = 0; v < g.rows(); v++) {
            for (int q = g.rowStart(v); q < g.rowEnd(v); q++) {
                int w = g.column(q);
                if (g.rowCount(v) >= 2 && g.rowCount(w) >= 2) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Tries to beat a greedy coloring. First iterated greedy (Culberson): greedy again, visiting the
     * vertices color class by color class (classes in reverse, largest first, smallest first, then
     * shuffled), which for a distance-1 coloring cannot need more colors than the one it starts
     * from. Then, for column and row colorings, a tabu search ({@link TabuSearch}) for one color
     * fewer, again while it succeeds. Keeps the best valid result of {@code passes} passes (each
     * search gets {@code passes · 1000} moves); a star coloring is kept only when valid and better.
     */
    public static Coloring recolor(Pattern p, Coloring start, int passes) {
        // At the lower bound already (a dense pattern among others): nothing to gain, and each pass costs.
        int bound = lowerBound(p, start.kind());
        if (start.count() <= bound) {
            return start;
        }
        Pattern g = conflictGraph(p, start.kind());
        Random random = new Random(start.count() * 31L + start.size());
        int[] best = start.colors();
        int[] current = best;
        for (int pass = 0; pass < passes && count(best) > bound; pass++) {
            int[] order = classOrder(current, pass, random);
            int[] next = start.kind() == Coloring.Kind.STAR ? star(g, order) : greedy(g, order);
            if (start.kind() == Coloring.Kind.STAR && !isStar(g, new Coloring(start.kind(), next, count(next), ""))) {
                continue;
            }
            current = next;
            if (count(next) < count(best)) {
                best = next;
            }
        }
        if (start.kind() != Coloring.Kind.STAR) {
            TabuSearch search = new TabuSearch(g, start.count() * 17L + start.size());
            int[] fewer;
            // Never below the lower bound: that search could only fail, and it is the costly one.
            while (count(best) > bound && (fewer = search.fewer(best, count(best), passes * 1000)) != null) {
                best = fewer;
            }
        }
        String order = start.order().endsWith("+recolor") ? start.order() : start.order() + "+recolor";
        return count(best) < start.count() ? new Coloring(start.kind(), best, count(best), order) : start;
    }

    private static int[] classOrder(int[] colors, int pass, Random random) {
        int k = count(colors);
        Integer[] classes = new Integer[k];
        int[] size = new int[k];
        for (int c : colors) {
            size[c]++;
        }
        for (int c = 0; c < k; c++) {
            classes[c] = c;
        }
        switch (pass % 4) {
            case 0 -> Arrays.sort(classes, Comparator.reverseOrder());
            case 1 -> Arrays.sort(classes, Comparator.comparingInt((Integer c) -> -size[c]));
            case 2 -> Arrays.sort(classes, Comparator.comparingInt((Integer c) -> size[c]));
            default -> java.util.Collections.shuffle(Arrays.asList(classes), random);
        }
        int[] rank = new int[k];
        for (int i = 0; i < k; i++) {
            rank[classes[i]] = i;
        }
        Integer[] vs = new Integer[colors.length];
        for (int v = 0; v < vs.length; v++) {
            vs[v] = v;
        }
        Arrays.sort(vs, Comparator.comparingInt((Integer v) -> rank[colors[v]]));
        return Arrays.stream(vs).mapToInt(Integer::intValue).toArray();
    }
}
