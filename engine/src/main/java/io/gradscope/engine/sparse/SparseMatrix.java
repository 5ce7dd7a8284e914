package io.gradscope.engine.sparse;

import java.util.Arrays;

/**
 * A sparse matrix: a {@link Pattern} with one value per entry (entries numbered row by row, as the
 * pattern numbers them). An entry of the pattern may hold 0 (a structural nonzero that is zero here).
 *
 * <pre>{@code
 * SparseMatrix j = SparseMatrix.fromDense(new double[] {1, 0, 0, 2}, 2, 2);
 * j.get(1, 1);      // 2.0
 * j.pattern();      // the diagonal
 * }</pre>
 */
public record SparseMatrix(Pattern pattern, double[] values) {

    public SparseMatrix {
        if (values.length != pattern.nnz()) {
            throw new IllegalArgumentException(values.length + " values for " + pattern.nnz() + " entries");
        }
    }

    /** The nonzeros of a dense row-major array. */
    public static SparseMatrix fromDense(double[] dense, int rows, int cols) {
        Pattern p = Pattern.nonzeros(dense, rows, cols);
        double[] v = new double[p.nnz()];
        for (int i = 0; i < rows; i++) {
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                v[k] = dense[i * cols + p.column(k)];
            }
        }
        return new SparseMatrix(p, v);
    }

    public int rows() {
        return pattern.rows();
    }

    public int cols() {
        return pattern.cols();
    }

    /** The value at (i, j): 0 outside the pattern. */
    public double get(int i, int j) {
        int k = pattern.indexOf(i, j);
        return k < 0 ? 0 : values[k];
    }

    /** A dense row-major copy. */
    public double[] toDense() {
        double[] d = new double[Math.multiplyExact(rows(), cols())];
        for (int i = 0; i < rows(); i++) {
            for (int k = pattern.rowStart(i); k < pattern.rowEnd(i); k++) {
                d[i * cols() + pattern.column(k)] = values[k];
            }
        }
        return d;
    }

    /** The entries whose value is not 0 (NaN counts as nonzero). */
    public Pattern nonzeros() {
        Pattern.Builder b = new Pattern.Builder(rows(), cols());
        for (int i = 0; i < rows(); i++) {
            for (int k = pattern.rowStart(i); k < pattern.rowEnd(i); k++) {
                if (values[k] != 0) {
                    b.add(pattern.column(k));
                }
            }
            b.endRow();
        }
        return b.build();
    }

    /** {@code A x} for a dense vector. */
    public double[] times(double[] x) {
        double[] y = new double[rows()];
        for (int i = 0; i < rows(); i++) {
            double s = 0;
            for (int k = pattern.rowStart(i); k < pattern.rowEnd(i); k++) {
                s += values[k] * x[pattern.column(k)];
            }
            y[i] = s;
        }
        return y;
    }

    /** {@code uᵀ A} for a dense vector. */
    public double[] transposeTimes(double[] u) {
        double[] y = new double[cols()];
        for (int i = 0; i < rows(); i++) {
            for (int k = pattern.rowStart(i); k < pattern.rowEnd(i); k++) {
                y[pattern.column(k)] += u[i] * values[k];
            }
        }
        return y;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SparseMatrix m && m.pattern.equals(pattern) && Arrays.equals(m.values, values);
    }

    @Override
    public int hashCode() {
        return pattern.hashCode() * 31 + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return "SparseMatrix " + pattern.shape() + ", " + pattern.nnz() + " entries";
    }
}
