package io.gradscope.engine.jacobian;

import java.util.Arrays;
import java.util.Locale;

/**
 * A partition of a matrix's columns (or rows, or a symmetric matrix's indices) into groups that
 * one product can evaluate together: {@code colors[v]} is the group of column (row, index)
 * {@code v}, numbered from 0; {@code count} groups in all. Made by {@link Colorings}.
 *
 * @param kind what was colored and how a product uses it
 * @param colors the color of every column (row, index)
 * @param count how many colors: the number of products compressed evaluation takes
 * @param order the vertex order that made it, as its command-line name ("smallest-last",
 *     "smallest-last+recolor" after {@link Colorings#recolor})
 */
public record Coloring(Kind kind, int[] colors, int count, String order) {

    /** What is colored. */
    public enum Kind {
        /**
         * Columns, structurally orthogonal within a color (no row has two of them): one JVP per
         * color (forward mode). The distance-2 coloring of the bipartite graph's column side.
         */
        COLUMN,
        /** Rows, structurally orthogonal within a color: one VJP per color (reverse mode). */
        ROW,
        /**
         * The indices of a symmetric matrix (a Hessian), a star coloring: adjacent indices differ and
         * every path on four indices uses three colors or more, so each nonzero can be read directly
         * from one product (Gebremedhin, Manne and Pothen, "What color is your Jacobian?", 2005).
         */
        STAR;

        /** The command-line name: {@code column}, {@code row}, {@code star}. */
        public String flag() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The kind called {@code name} on the command line, or null. */
        public static Kind byFlag(String name) {
            for (Kind k : values()) {
                if (k.flag().equals(name)) {
                    return k;
                }
            }
            return null;
        }
    }

    public Coloring {
        colors = colors.clone();
    }

    @Override
    public int[] colors() {
        return colors.clone();
    }

    /** The color of column (row, index) {@code v}. */
    public int color(int v) {
        return colors[v];
    }

    /** How many columns (rows, indices) were colored. */
    public int size() {
        return colors.length;
    }

    /** The members of every color, ascending. */
    public int[][] groups() {
        int[] n = new int[count];
        for (int c : colors) {
            n[c]++;
        }
        int[][] g = new int[count][];
        for (int c = 0; c < count; c++) {
            g[c] = new int[n[c]];
        }
        int[] fill = new int[count];
        for (int v = 0; v < colors.length; v++) {
            g[colors[v]][fill[colors[v]]++] = v;
        }
        return g;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Coloring c && c.kind == kind && c.count == count && Arrays.equals(c.colors, colors)
                && c.order.equals(order);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(colors) * 31 + count;
    }

    @Override
    public String toString() {
        return kind.flag() + " coloring (" + order + "): " + count + " colors for " + colors.length;
    }
}
