package io.gradscope.engine.jacobian;

import io.gradscope.engine.sparse.Pattern;
import java.util.Random;

/**
 * Tries to color a conflict graph with one color fewer by local search (TabuCol, Hertz and de
 * Werra 1987): start from a coloring whose last class is spread over the others, then repeatedly
 * move a vertex in conflict to the color where it conflicts least, forbidding it to return for a
 * while; success when no conflict is left. Cheap for pattern-sized graphs (moves cost O(colors)
 * for each vertex in conflict) and deterministic (seeded).
 */
final class TabuSearch {
    private final Pattern g;
    private final Random random;

    TabuSearch(Pattern graph, long seed) {
        this.g = graph;
        this.random = new Random(seed);
    }

    /** A valid coloring with {@code k − 1} colors found from {@code colors} (k colors), or null. */
    int[] fewer(int[] colors, int k, int iterations) {
        int n = g.rows();
        int target = k - 1;
        if (target < 1) {
            return null;
        }
        int[] c = colors.clone();
        for (int v = 0; v < n; v++) {
            if (c[v] == target) {
                c[v] = random.nextInt(target);
            }
        }
        int[][] gamma = new int[n][target];
        for (int v = 0; v < n; v++) {
            for (int q = g.rowStart(v); q < g.rowEnd(v); q++) {
                gamma[v][c[g.column(q)]]++;
            }
        }
        int conflicts = 0;
        for (int v = 0; v < n; v++) {
            conflicts += gamma[v][c[v]];
        }
        conflicts /= 2;
        int best = conflicts;
        long[][] tabu = new long[n][target];
        for (long it = 0; it < iterations && conflicts > 0; it++) {
            int bestV = -1;
            int bestC = -1;
            int bestDelta = Integer.MAX_VALUE;
            int ties = 0;
            int inConflict = 0;
            for (int v = 0; v < n; v++) {
                int own = gamma[v][c[v]];
                if (own == 0) {
                    continue;
                }
                inConflict++;
                for (int col = 0; col < target; col++) {
                    if (col == c[v]) {
                        continue;
                    }
                    int delta = gamma[v][col] - own;
                    boolean allowed = tabu[v][col] <= it || conflicts + delta < best;
                    if (!allowed) {
                        continue;
                    }
                    if (delta < bestDelta) {
                        bestDelta = delta;
                        bestV = v;
                        bestC = col;
                        ties = 1;
                    } else if (delta == bestDelta && random.nextInt(++ties) == 0) {
                        bestV = v;
                        bestC = col;
                    }
                }
            }
            if (bestV < 0) {
                continue;
            }
            int old = c[bestV];
            c[bestV] = bestC;
            for (int q = g.rowStart(bestV); q < g.rowEnd(bestV); q++) {
                int w = g.column(q);
                gamma[w][old]--;
                gamma[w][bestC]++;
            }
            conflicts += bestDelta;
            best = Math.min(best, conflicts);
            tabu[bestV][old] = it + (long) (0.6 * inConflict) + random.nextInt(10) + 1;
        }
        return conflicts == 0 ? c : null;
    }
}
