package io.gradscope.engine.jacobian;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;

/**
 * Evaluating a Jacobian from products: densely (one VJP per row, or one JVP per column) or
 * compressed by a coloring of its sparsity pattern (one product per color), then decompressed.
 * Results keep the entries that are not zero (dense) or the pattern's entries (compressed).
 *
 * <pre>{@code
 * Pattern p = j.pattern(Sparsity.GLOBAL);
 * Coloring c = Colorings.color(p, Coloring.Kind.COLUMN, VertexOrder.NATURAL);
 * SparseMatrix jac = Jacobians.compressed(j, p, c);    // c.count() JVPs instead of j.cols()
 * }</pre>
 */
public final class Jacobians {
    private Jacobians() {
    }

    /** Every row by a VJP with a unit vector: {@code rows()} VJPs. */
    public static SparseMatrix denseByRows(JacobianOperator j) {
        int m = j.rows();
        int n = j.cols();
        Pattern.Builder b = new Pattern.Builder(m, n);
        DoubleList values = new DoubleList();
        double[] u = new double[m];
        for (int i = 0; i < m; i++) {
            u[i] = 1;
            double[] row = j.vjp(u);
            u[i] = 0;
            for (int k = 0; k < n; k++) {
                if (row[k] != 0) {
                    b.add(k);
                    values.add(row[k]);
                }
            }
            b.endRow();
        }
        return new SparseMatrix(b.build(), values.toArray());
    }

    /** Every column by a JVP with a unit vector: {@code cols()} JVPs. */
    public static SparseMatrix denseByColumns(JacobianOperator j) {
        int m = j.rows();
        int n = j.cols();
        Pattern.Builder b = new Pattern.Builder(n, m);
        DoubleList values = new DoubleList();
        double[] v = new double[n];
        for (int k = 0; k < n; k++) {
            v[k] = 1;
            double[] col = j.jvp(v);
            v[k] = 0;
            for (int i = 0; i < m; i++) {
                if (col[i] != 0) {
                    b.add(i);
                    values.add(col[i]);
                }
            }
            b.endRow();
        }
        return transpose(new SparseMatrix(b.build(), values.toArray()));
    }

    /**
     * The Jacobian on {@code p}'s entries from one product per color: a column coloring takes JVPs
     * with the sum of its columns' unit vectors, a row coloring VJPs with the sum of its rows', a star
     * coloring (of a symmetric Jacobian, a Hessian) JVPs read directly. Exact when the Jacobian is
     * zero outside {@code p} and the coloring is valid.
     */
    public static SparseMatrix compressed(JacobianOperator j, Pattern p, Coloring c) {
        if (p.rows() != j.rows() || p.cols() != j.cols()) {
            throw new GradscopeException("the pattern is " + p.shape() + " but the Jacobian " + j.rows() + " x " + j.cols());
        }
        if (!Colorings.isValid(p, c)) {
            throw new GradscopeException("the " + c.kind().flag() + " coloring is not valid for this pattern");
        }
        double[][] products = products(j, c);
        double[] values = new double[p.nnz()];
        switch (c.kind()) {
            case COLUMN -> {
                for (int i = 0; i < p.rows(); i++) {
                    for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                        values[k] = products[c.color(p.column(k))][i];
                    }
                }
            }
            case ROW -> {
                for (int i = 0; i < p.rows(); i++) {
                    for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                        values[k] = products[c.color(i)][p.column(k)];
                    }
                }
            }
            case STAR -> {
                starValues(p, c, products, values);
                // Each pair (i, j), (j, i) takes the value read for the upper one, so the result is exactly symmetric.
                for (int i = 0; i < p.rows(); i++) {
                    for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                        if (p.column(k) > i) {
                            values[p.indexOf(p.column(k), i)] = values[k];
                        }
                    }
                }
            }
        }
        return new SparseMatrix(p, values);
    }

    /** One product per color: B[color] = J·(Σ eⱼ) over the color's columns, or (Σ eᵢ)ᵀ·J over its rows. */
    private static double[][] products(JacobianOperator j, Coloring c) {
        boolean rows = c.kind() == Coloring.Kind.ROW;
        int[][] groups = c.groups();
        double[][] out = new double[groups.length][];
        for (int g = 0; g < groups.length; g++) {
            double[] seed = new double[rows ? j.rows() : j.cols()];
            for (int v : groups[g]) {
                seed[v] = 1;
            }
            out[g] = rows ? j.vjp(seed) : j.jvp(seed);
        }
        return out;
    }

    /**
     * Direct recovery from a star coloring: (i, i) is B[c(i)][i]; off the diagonal, H[i][j] is
     * B[c(j)][i] when j is i's only neighbor of its color, else B[c(i)][j] (a star coloring makes
     * i the only neighbor of j with i's color then).
     */
    private static void starValues(Pattern p, Coloring c, double[][] b, double[] values) {
        int[] seen = new int[Math.max(c.count(), 1)];
        int[] count = new int[seen.length];
        java.util.Arrays.fill(seen, -1);
        for (int i = 0; i < p.rows(); i++) {
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                int col = c.color(p.column(k));
                if (p.column(k) != i) {
                    count[col] = seen[col] == i ? count[col] + 1 : 1;
                    seen[col] = i;
                }
            }
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                int j = p.column(k);
                if (j == i) {
                    values[k] = b[c.color(i)][i];
                } else {
                    values[k] = count[c.color(j)] == 1 ? b[c.color(j)][i] : b[c.color(i)][j];
                }
            }
        }
    }

    static SparseMatrix transpose(SparseMatrix a) {
        Pattern t = a.pattern().transpose();
        double[] v = new double[t.nnz()];
        Pattern p = a.pattern();
        for (int i = 0; i < p.rows(); i++) {
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                v[t.indexOf(p.column(k), i)] = a.values()[k];
            }
        }
        return new SparseMatrix(t, v);
    }

    /** A growable list of doubles. */
    private static final class DoubleList {
        private double[] a = new double[16];
        private int n;

        void add(double v) {
            if (n == a.length) {
                a = java.util.Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }

        double[] toArray() {
            return java.util.Arrays.copyOf(a, n);
        }
    }
}
