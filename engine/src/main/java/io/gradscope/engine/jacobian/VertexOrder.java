package io.gradscope.engine.jacobian;

import io.gradscope.engine.sparse.Pattern;
import java.util.Locale;

/**
 * The order in which greedy coloring visits the vertices of a conflict graph (a symmetric pattern
 * without its diagonal), as ColPack and SparseMatrixColorings name them.
 */
public enum VertexOrder {
    /** 0, 1, 2, ... */
    NATURAL,
    /** By degree, largest first (ties: smaller index first). */
    LARGEST_FIRST,
    /**
     * Repeatedly take a vertex of smallest degree among those left and put it last (Matula and
     * Beck): every vertex has at most the graph's degeneracy neighbors before it.
     */
    SMALLEST_LAST,
    /** Next, the vertex with the most neighbors already ordered. */
    INCIDENCE_DEGREE,
    /** Next, the vertex with the largest degree among the vertices not yet ordered. */
    DYNAMIC_LARGEST_FIRST;

    /** The command-line name: {@code smallest-last}. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The order called {@code name} on the command line, or null. */
    public static VertexOrder byFlag(String name) {
        for (VertexOrder o : values()) {
            if (o.flag().equals(name)) {
                return o;
            }
        }
        return null;
    }

    /** The vertices of {@code graph} in this order. */
    public int[] order(Pattern graph) {
        int n = graph.rows();
        int[] order = new int[n];
        switch (this) {
            case NATURAL -> {
                for (int v = 0; v < n; v++) {
                    order[v] = v;
                }
            }
            case LARGEST_FIRST -> {
                int max = graph.maxRowCount();
                int[] start = new int[max + 2];
                for (int v = 0; v < n; v++) {
                    start[max - graph.rowCount(v) + 1]++;
                }
                for (int d = 0; d <= max; d++) {
                    start[d + 1] += start[d];
                }
                for (int v = 0; v < n; v++) {
                    order[start[max - graph.rowCount(v)]++] = v;
                }
            }
            case SMALLEST_LAST -> {
                Buckets b = Buckets.byDegree(graph);
                boolean[] gone = new boolean[n];
                for (int k = n - 1; k >= 0; k--) {
                    int v = b.popMin();
                    gone[v] = true;
                    order[k] = v;
                    for (int q = graph.rowStart(v); q < graph.rowEnd(v); q++) {
                        int w = graph.column(q);
                        if (!gone[w]) {
                            b.move(w, b.key(w) - 1);
                        }
                    }
                }
            }
            case INCIDENCE_DEGREE, DYNAMIC_LARGEST_FIRST -> {
                boolean incidence = this == INCIDENCE_DEGREE;
                Buckets b = incidence ? Buckets.zeros(n, graph.maxRowCount()) : Buckets.byDegree(graph);
                boolean[] done = new boolean[n];
                for (int k = 0; k < n; k++) {
                    int v = b.popMax();
                    done[v] = true;
                    order[k] = v;
                    for (int q = graph.rowStart(v); q < graph.rowEnd(v); q++) {
                        int w = graph.column(q);
                        if (!done[w]) {
                            b.move(w, b.key(w) + (incidence ? 1 : -1));
                        }
                    }
                }
            }
            default -> throw new IllegalStateException();
        }
        return order;
    }

    /** Vertices kept in lists by an integer key (a degree), for popping the smallest or largest. */
    private static final class Buckets {
        private final int[] head;
        private final int[] next;
        private final int[] prev;
        private final int[] key;
        private int min;
        private int max;

        private Buckets(int n, int maxKey) {
            head = new int[maxKey + 1];
            java.util.Arrays.fill(head, -1);
            next = new int[n];
            prev = new int[n];
            key = new int[n];
            min = 0;
            max = maxKey;
        }

        static Buckets byDegree(Pattern g) {
            Buckets b = new Buckets(g.rows(), g.maxRowCount());
            // Inserted from the last vertex to the first, so equal keys pop the smaller index first.
            for (int v = g.rows() - 1; v >= 0; v--) {
                b.insert(v, g.rowCount(v));
            }
            return b;
        }

        static Buckets zeros(int n, int maxKey) {
            Buckets b = new Buckets(n, maxKey);
            for (int v = n - 1; v >= 0; v--) {
                b.insert(v, 0);
            }
            return b;
        }

        int key(int v) {
            return key[v];
        }

        private void insert(int v, int k) {
            key[v] = k;
            prev[v] = -1;
            next[v] = head[k];
            if (head[k] >= 0) {
                prev[head[k]] = v;
            }
            head[k] = v;
            min = Math.min(min, k);
            max = Math.max(max, k);
        }

        private void remove(int v) {
            if (prev[v] >= 0) {
                next[prev[v]] = next[v];
            } else {
                head[key[v]] = next[v];
            }
            if (next[v] >= 0) {
                prev[next[v]] = prev[v];
            }
        }

        void move(int v, int k) {
            remove(v);
            insert(v, k);
        }

        int popMin() {
            while (head[min] < 0) {
                min++;
            }
            int v = head[min];
            remove(v);
            return v;
        }

        int popMax() {
            while (head[max] < 0) {
                max--;
            }
            int v = head[max];
            remove(v);
            return v;
        }
    }
}
