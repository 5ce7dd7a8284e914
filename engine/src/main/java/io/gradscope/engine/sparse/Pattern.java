package io.gradscope.engine.sparse;

import io.gradscope.engine.GradscopeException;
import java.util.Arrays;

/**
 * A sparsity pattern: which entries of a {@code rows x cols} matrix may be nonzero, stored by rows
 * (compressed sparse rows, column indices sorted and unique within a row). Immutable.
 *
 * <p>The Jacobian of an op is {@code output.numel x input.numel} with both sides flattened in C
 * order; an op's dependency rule returns one of these, and patterns of a whole computation are
 * their boolean products along the graph.
 *
 * <pre>{@code
 * Pattern d = Pattern.identity(3);                       // an elementwise op
 * Pattern s = Pattern.scatter(new int[] {0, 0, 1}, 2);   // sum of [[a, b], [c]]: 2 x 3
 * Pattern sd = s.times(d);                               // the chain: 2 x 3, 3 nonzeros
 * }</pre>
 */
public final class Pattern implements Rows {
    private final int rows;
    private final int cols;
    private final int[] rowStart;
    private final int[] colIndex;

    /** From compressed rows whose column indices are sorted and unique within each row (not copied). */
    Pattern(int rows, int cols, int[] rowStart, int[] colIndex) {
        this.rows = rows;
        this.cols = cols;
        this.rowStart = rowStart;
        this.colIndex = colIndex;
    }

    // ---- construction -----------------------------------------------------------------------

    /** No nonzeros. */
    public static Pattern empty(int rows, int cols) {
        return new Pattern(rows, cols, new int[rows + 1], new int[0]);
    }

    /** Every entry. */
    public static Pattern dense(int rows, int cols) {
        long nnz = (long) rows * cols;
        checkSize(nnz);
        int[] start = new int[rows + 1];
        int[] idx = new int[(int) nnz];
        for (int i = 0; i < rows; i++) {
            start[i + 1] = start[i] + cols;
            for (int j = 0; j < cols; j++) {
                idx[i * cols + j] = j;
            }
        }
        return new Pattern(rows, cols, start, idx);
    }

    /** The diagonal of an {@code n x n} matrix. */
    public static Pattern identity(int n) {
        int[] source = new int[n];
        for (int i = 0; i < n; i++) {
            source[i] = i;
        }
        return gather(source, n);
    }

    /** Row {@code i} holds the one column {@code source[i]}, or nothing where it is negative. */
    public static Pattern gather(int[] source, int cols) {
        int[] start = new int[source.length + 1];
        int nnz = 0;
        for (int i = 0; i < source.length; i++) {
            nnz += source[i] >= 0 ? 1 : 0;
            start[i + 1] = nnz;
        }
        int[] idx = new int[nnz];
        int k = 0;
        for (int s : source) {
            if (s >= 0) {
                if (s >= cols) {
                    throw new IllegalArgumentException("column " + s + " outside " + cols + " columns");
                }
                idx[k++] = s;
            }
        }
        return new Pattern(source.length, cols, start, idx);
    }

    /** Column {@code j} is nonzero in the one row {@code target[j]}, or in none where it is negative. */
    public static Pattern scatter(int[] target, int rows) {
        return gather(target, rows).transpose();
    }

    /**
     * Entry (i, j) is nonzero when row i and column j are in the same group ({@code rowGroup[i] ==
     * colGroup[j]}, both non-negative): blocks, as softmax along an axis has.
     */
    public static Pattern sameGroup(int[] rowGroup, int[] colGroup, int groups) {
        Pattern members = scatter(colGroup, groups); // groups x cols
        Builder b = new Builder(rowGroup.length, colGroup.length);
        for (int g : rowGroup) {
            if (g >= 0) {
                for (int k = members.rowStart[g]; k < members.rowStart[g + 1]; k++) {
                    b.add(members.colIndex[k]);
                }
            }
            b.endRow();
        }
        return b.build();
    }

    /** The entries that are not zero in a dense row-major {@code rows x cols} array (NaN counts as nonzero). */
    public static Pattern nonzeros(double[] dense, int rows, int cols) {
        Builder b = new Builder(rows, cols);
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                if (dense[i * cols + j] != 0) {
                    b.add(j);
                }
            }
            b.endRow();
        }
        return b.build();
    }

    /** From coordinates (0-based, any order; duplicates are merged). */
    public static Pattern fromCoordinates(int rows, int cols, int[] ri, int[] ci) {
        int[] count = new int[rows + 1];
        for (int k = 0; k < ri.length; k++) {
            if (ri[k] < 0 || ri[k] >= rows || ci[k] < 0 || ci[k] >= cols) {
                throw new IllegalArgumentException("entry (" + ri[k] + ", " + ci[k] + ") outside " + rows + " x " + cols);
            }
            count[ri[k] + 1]++;
        }
        for (int i = 0; i < rows; i++) {
            count[i + 1] += count[i];
        }
        int[] fill = Arrays.copyOf(count, rows);
        int[] idx = new int[ri.length];
        for (int k = 0; k < ri.length; k++) {
            idx[fill[ri[k]]++] = ci[k];
        }
        Builder b = new Builder(rows, cols);
        for (int i = 0; i < rows; i++) {
            for (int k = count[i]; k < count[i + 1]; k++) {
                b.add(idx[k]);
            }
            b.endRow();
        }
        return b.build();
    }

    /** Every row of {@code rows} listed (an op's rule made of windows, built out). */
    public static Pattern of(Rows rows) {
        if (rows instanceof Pattern p) {
            return p;
        }
        checkSize(rows.entries());
        int[] buf = new int[rows.maxRowCount()];
        Builder b = new Builder(rows.rows(), rows.cols());
        for (int i = 0; i < rows.rows(); i++) {
            int n = rows.row(i, buf);
            for (int k = 0; k < n; k++) {
                b.add(buf[k]);
            }
            b.endRow();
        }
        return b.build();
    }

    /**
     * Builds a pattern row by row: {@link #add} the columns of the current row in any order (repeats
     * are merged), {@link #endRow} after each row.
     */
    public static final class Builder {
        private final int rows;
        private final int cols;
        private final int[] start;
        private int[] idx = new int[16];
        private int n;
        private int row;
        private boolean sorted = true;

        public Builder(int rows, int cols) {
            this.rows = rows;
            this.cols = cols;
            this.start = new int[rows + 1];
        }

        /** Adds column {@code j} to the current row. */
        public Builder add(int j) {
            if (j < 0 || j >= cols) {
                throw new IllegalArgumentException("column " + j + " outside " + cols + " columns");
            }
            if (n == idx.length) {
                checkSize((long) n * 2);
                idx = Arrays.copyOf(idx, Math.max(16, n * 2));
            }
            if (n > start[row] && idx[n - 1] >= j) {
                sorted = false;
            }
            idx[n++] = j;
            return this;
        }

        /** Ends the current row: sorts it and merges repeats. */
        public Builder endRow() {
            if (row >= rows) {
                throw new IllegalStateException("more than " + rows + " rows");
            }
            int s = start[row];
            if (!sorted) {
                Arrays.sort(idx, s, n);
                int w = s;
                for (int k = s; k < n; k++) {
                    if (k == s || idx[k] != idx[w - 1]) {
                        idx[w++] = idx[k];
                    }
                }
                n = w;
                sorted = true;
            }
            start[++row] = n;
            return this;
        }

        public Pattern build() {
            while (row < rows) {
                endRow();
            }
            return new Pattern(rows, cols, start, Arrays.copyOf(idx, n));
        }
    }

    static void checkSize(long nnz) {
        if (nnz > Integer.MAX_VALUE - 8) {
            throw new GradscopeException("a sparsity pattern with more than " + (Integer.MAX_VALUE - 8) + " nonzeros is too large");
        }
    }

    // ---- access -----------------------------------------------------------------------------

    @Override
    public int rows() {
        return rows;
    }

    @Override
    public int cols() {
        return cols;
    }

    @Override
    public int row(int i, int[] buf) {
        int n = rowStart[i + 1] - rowStart[i];
        System.arraycopy(colIndex, rowStart[i], buf, 0, n);
        return n;
    }

    @Override
    public long entries() {
        return colIndex.length;
    }

    public int nnz() {
        return colIndex.length;
    }

    /** Nonzeros over entries (0 for an empty shape). */
    public double density() {
        double all = (double) rows * cols;
        return all == 0 ? 0 : nnz() / all;
    }

    /** Where row {@code i}'s entries begin in {@link #column(int)}'s numbering. */
    public int rowStart(int i) {
        return rowStart[i];
    }

    /** Where row {@code i}'s entries end (exclusive). */
    public int rowEnd(int i) {
        return rowStart[i + 1];
    }

    /** The column of entry {@code k} (entries numbered row by row). */
    public int column(int k) {
        return colIndex[k];
    }

    /** The columns of row {@code i}, ascending. */
    public int[] row(int i) {
        return Arrays.copyOfRange(colIndex, rowStart[i], rowStart[i + 1]);
    }

    /** How many entries row {@code i} has. */
    @Override
    public int rowCount(int i) {
        return rowStart[i + 1] - rowStart[i];
    }

    /** Whether (i, j) may be nonzero. */
    public boolean contains(int i, int j) {
        return Arrays.binarySearch(colIndex, rowStart[i], rowStart[i + 1], j) >= 0;
    }

    /** The entry number of (i, j), or -1. */
    public int indexOf(int i, int j) {
        int k = Arrays.binarySearch(colIndex, rowStart[i], rowStart[i + 1], j);
        return k >= 0 ? k : -1;
    }

    /** The most entries in one row. */
    @Override
    public int maxRowCount() {
        int m = 0;
        for (int i = 0; i < rows; i++) {
            m = Math.max(m, rowCount(i));
        }
        return m;
    }

    /** The most entries in one column. */
    public int maxColumnCount() {
        int[] c = new int[cols];
        int m = 0;
        for (int j : colIndex) {
            m = Math.max(m, ++c[j]);
        }
        return m;
    }

    // ---- algebra ----------------------------------------------------------------------------

    public Pattern transpose() {
        int[] start = new int[cols + 1];
        for (int j : colIndex) {
            start[j + 1]++;
        }
        for (int j = 0; j < cols; j++) {
            start[j + 1] += start[j];
        }
        int[] fill = Arrays.copyOf(start, cols);
        int[] idx = new int[colIndex.length];
        for (int i = 0; i < rows; i++) {
            for (int k = rowStart[i]; k < rowStart[i + 1]; k++) {
                idx[fill[colIndex[k]]++] = i;
            }
        }
        return new Pattern(cols, rows, start, idx);
    }

    /** The boolean product {@code this · other}: (i, j) where some k has (i, k) here and (k, j) there. */
    public Pattern times(Pattern other) {
        if (cols != other.rows) {
            throw new IllegalArgumentException("cannot multiply " + shape() + " by " + other.shape());
        }
        int[] mark = new int[other.cols];
        Arrays.fill(mark, -1);
        Builder b = new Builder(rows, other.cols);
        for (int i = 0; i < rows; i++) {
            for (int k = rowStart[i]; k < rowStart[i + 1]; k++) {
                int mid = colIndex[k];
                for (int q = other.rowStart[mid]; q < other.rowStart[mid + 1]; q++) {
                    int j = other.colIndex[q];
                    if (mark[j] != i) {
                        mark[j] = i;
                        b.add(j);
                    }
                }
            }
            b.endRow();
        }
        return b.build();
    }

    /** Entries in either. */
    public Pattern union(Pattern other) {
        sameShape(other);
        Builder b = new Builder(rows, cols);
        for (int i = 0; i < rows; i++) {
            int p = rowStart[i];
            int q = other.rowStart[i];
            int pe = rowStart[i + 1];
            int qe = other.rowStart[i + 1];
            while (p < pe || q < qe) {
                int a = p < pe ? colIndex[p] : Integer.MAX_VALUE;
                int c = q < qe ? other.colIndex[q] : Integer.MAX_VALUE;
                b.add(Math.min(a, c));
                p += a <= c ? 1 : 0;
                q += c <= a ? 1 : 0;
            }
            b.endRow();
        }
        return b.build();
    }

    /** Whether every entry here is in {@code other}. */
    public boolean subsetOf(Pattern other) {
        sameShape(other);
        for (int i = 0; i < rows; i++) {
            for (int k = rowStart[i]; k < rowStart[i + 1]; k++) {
                if (!other.contains(i, colIndex[k])) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Square with (j, i) wherever (i, j). */
    public boolean isSymmetric() {
        return rows == cols && equals(transpose());
    }

    /** The pattern with (j, i) added for every (i, j) (square patterns only). */
    public Pattern symmetrized() {
        if (rows != cols) {
            throw new IllegalArgumentException("only a square pattern can be symmetric, not " + shape());
        }
        return union(transpose());
    }

    private void sameShape(Pattern other) {
        if (rows != other.rows || cols != other.cols) {
            throw new IllegalArgumentException("patterns " + shape() + " and " + other.shape() + " differ in shape");
        }
    }

    /** {@code "3 x 4"}. */
    public String shape() {
        return rows + " x " + cols;
    }

    /** A dense row-major boolean copy (for small patterns and tests). */
    public boolean[] toDense() {
        boolean[] d = new boolean[Math.multiplyExact(rows, cols)];
        for (int i = 0; i < rows; i++) {
            for (int k = rowStart[i]; k < rowStart[i + 1]; k++) {
                d[i * cols + colIndex[k]] = true;
            }
        }
        return d;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Pattern p && p.rows == rows && p.cols == cols && Arrays.equals(p.rowStart, rowStart)
                && Arrays.equals(p.colIndex, colIndex);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * rows + cols) + Arrays.hashCode(colIndex);
    }

    @Override
    public String toString() {
        return "Pattern " + shape() + ", " + nnz() + " nonzeros";
    }
}
