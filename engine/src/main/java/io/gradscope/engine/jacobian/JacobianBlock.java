package io.gradscope.engine.jacobian;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.Rows;
import io.gradscope.engine.sparse.SparseMatrix;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * A block of a Jacobian's rows or columns evaluated on its own ({@link RecordedRun.Part}): the
 * products see only the block (a VJP's cotangent is zero outside its rows, a JVP's output is read
 * only on them), so the rows left out never enter a compressed seed; the values and the coloring
 * are then placed back at the block's rows and columns of the whole Jacobian. (Coloring the whole
 * pattern with its other rows emptied would let those rows share a color with the block's and add
 * their values into its products.)
 *
 * <pre>{@code
 * JacobianBlock b = JacobianBlock.of(j, pattern, 0, 10, 0, j.cols());   // the first 10 rows
 * SparseMatrix m = b.evaluate(ColoringChoice.CHEAPER, null, Watched.Progress.NONE);
 * }</pre>
 */
record JacobianBlock(JacobianOperator j, Pattern whole, int r0, int r1, int c0, int c1) implements JacobianOperator {
    /** Rows {@code r0} to {@code r1} and columns {@code c0} to {@code c1} (ends excluded, clamped to the Jacobian). */
    static JacobianBlock of(JacobianOperator j, Pattern whole, int r0, int r1, int c0, int c1) {
        return new JacobianBlock(j, whole, Math.max(0, r0), Math.min(j.rows(), r1), Math.max(0, c0), Math.min(j.cols(), c1));
    }

    /** The block's own pattern, rows and columns counted from the block's corner. */
    Pattern pattern() {
        return Pattern.of(new Rows() {
            @Override
            public int rows() {
                return r1 - r0;
            }

            @Override
            public int cols() {
                return c1 - c0;
            }

            @Override
            public int maxRowCount() {
                return Math.max(1, whole.maxRowCount());
            }

            @Override
            public int row(int i, int[] buf) {
                int n = 0;
                for (int k = whole.rowStart(i + r0); k < whole.rowEnd(i + r0); k++) {
                    int c = whole.column(k);
                    if (c >= c0 && c < c1) {
                        buf[n++] = c - c0;
                    }
                }
                return n;
            }

            @Override
            public long entries() {
                long n = 0;
                int[] buf = new int[maxRowCount()];
                for (int i = 0; i < rows(); i++) {
                    n += row(i, buf);
                }
                return n;
            }
        });
    }

    /** The whole pattern's entries inside the block. */
    Pattern kept() {
        return Pattern.of(new Rows() {
            @Override
            public int rows() {
                return whole.rows();
            }

            @Override
            public int cols() {
                return whole.cols();
            }

            @Override
            public int maxRowCount() {
                return Math.max(1, whole.maxRowCount());
            }

            @Override
            public int row(int i, int[] buf) {
                if (i < r0 || i >= r1) {
                    return 0;
                }
                int n = 0;
                for (int k = whole.rowStart(i); k < whole.rowEnd(i); k++) {
                    int c = whole.column(k);
                    if (c >= c0 && c < c1) {
                        buf[n++] = c;
                    }
                }
                return n;
            }

            @Override
            public long entries() {
                long n = 0;
                int[] buf = new int[maxRowCount()];
                for (int i = r0; i < r1; i++) {
                    n += row(i, buf);
                }
                return n;
            }
        });
    }

    /** The coloring of the block's pattern as one of {@code kept}: rows or columns outside the block (empty there) get color 0. */
    Coloring placed(Coloring c, Pattern kept) {
        boolean byRow = c.kind() == Coloring.Kind.ROW;
        int[] all = new int[byRow ? kept.rows() : kept.cols()];
        int from = byRow ? r0 : c0;
        for (int v = 0; v < c.size(); v++) {
            all[v + from] = c.color(v);
        }
        return new Coloring(c.kind(), all, c.count(), c.order());
    }

    /** The block's values placed at their rows and columns in {@code kept} (the whole pattern's entries inside the block). */
    SparseMatrix placed(SparseMatrix block, Pattern kept) {
        double[] v = new double[kept.nnz()];
        for (int i = r0; i < r1; i++) {
            for (int k = kept.rowStart(i); k < kept.rowEnd(i); k++) {
                v[k] = block.get(i - r0, kept.column(k) - c0);
            }
        }
        return new SparseMatrix(kept, v);
    }

    @Override
    public int rows() {
        return r1 - r0;
    }

    @Override
    public int cols() {
        return c1 - c0;
    }

    @Override
    public double[] vjp(double[] u) {
        double[] full = new double[j.rows()];
        System.arraycopy(u, 0, full, r0, u.length);
        return Arrays.copyOfRange(j.vjp(full), c0, c1);
    }

    @Override
    public double[] jvp(double[] v) {
        double[] full = new double[j.cols()];
        System.arraycopy(v, 0, full, c0, v.length);
        return Arrays.copyOfRange(j.jvp(full), r0, r1);
    }

    @Override
    public int vjps() {
        return j.vjps();
    }

    @Override
    public int jvps() {
        return j.jvps();
    }

    /** Colors the block's pattern as {@code coloring} says and evaluates it compressed (or not, for a pattern alone). */
    record Evaluated(Pattern pattern, Coloring coloring, SparseMatrix values) {
    }

    Evaluated evaluate(ColoringChoice coloring, boolean evaluate, BooleanSupplier cancelled, Watched.Progress progress) {
        Pattern sub = pattern();
        Coloring c = coloring.color(sub);
        SparseMatrix m = evaluate ? Jacobians.compressed(new Watched(this, cancelled, progress, c.count()), sub, c)
                : new SparseMatrix(sub, new double[sub.nnz()]);
        Pattern kept = kept();
        return new Evaluated(kept, placed(c, kept), placed(m, kept));
    }
}
