package io.gradscope.engine.sparse;

import java.util.Arrays;

/**
 * One index set per element of a tensor: the columns (elements of the tensor differentiated by)
 * that the element may depend on. A set is stored as sorted, disjoint half-open runs
 * {@code [start0, end0, start1, end1, ...]}, so a window's columns or a whole channel's weights
 * take two ints, and elements with equal sets share one array (an elementwise op passes its
 * input's arrays on; a reduction or a saturated set is stored once), as SparseConnectivityTracer
 * shares its sets. The sets of a Jacobian's rows count its nonzeros without building the pattern;
 * {@link #toPattern} builds it.
 *
 * <pre>{@code
 * IndexSets x = IndexSets.identity(4);                      // {0}, {1}, {2}, {3}
 * IndexSets y = IndexSets.propagate(2, 4, List.of(new IndexSets.Input(x, Pattern.scatter(new int[] {0, 0, 1, 1}, 2))));
 * y.nonzeros();                                             // 4: {0, 1}, {2, 3}
 * }</pre>
 */
public final class IndexSets {
    private static final int[] EMPTY = new int[0];

    private final int cols;
    /** Null for the identity: element e holds {e}. */
    private final int[][] sets;
    private final int size;
    /** The one array every element holds, or null where they differ (or for the identity). */
    private final int[] uniform;

    private IndexSets(int size, int cols, int[][] sets) {
        this.size = size;
        this.cols = cols;
        this.sets = sets;
        int[] one = sets == null || size == 0 ? null : sets[0];
        for (int e = 1; one != null && e < size; e++) {
            one = sets[e] == one ? one : null;
        }
        this.uniform = one;
    }

    /** Element e depends on column e alone: the tensor differentiated by. */
    public static IndexSets identity(int n) {
        return new IndexSets(n, n, null);
    }

    /** An input's sets and the op's rule for it ({@code output.numel x input.numel}). */
    public record Input(IndexSets sets, Rows rule) {
    }

    /** Thrown by {@link #propagate} when its {@code cancelled} check says so. */
    public static final class Cancelled extends RuntimeException {
        public Cancelled() {
            super("cancelled", null, false, false);
        }
    }

    /**
     * The sets of an op's {@code size} output elements: element r's set is the union, over the
     * inputs, of the sets of the input elements in row r of the rule. {@code cancelled} is asked
     * every few thousand rows (null: never); it throws {@link Cancelled} when it says yes.
     */
    public static IndexSets propagate(int size, int cols, java.util.List<Input> inputs,
            java.util.function.BooleanSupplier cancelled) {
        int[][] out = new int[size][];
        Union u = new Union(cols);
        int most = 1;
        for (Input in : inputs) {
            most = Math.max(most, in.rule().maxRowCount());
        }
        int[] buf = new int[most];
        // Where every input element holds one array (a saturated set, deep in a network), a row's
        // set is the union of those of the inputs its rule row reads at all: counted, not listed.
        boolean uniform = inputs.stream().allMatch(in -> in.sets().uniform != null);
        for (int r = 0; r < size; r++) {
            if (cancelled != null && (r & 4095) == 0 && cancelled.getAsBoolean()) {
                throw new Cancelled();
            }
            u.reset();
            for (int i = 0; i < inputs.size() && !u.full; i++) {
                Input in = inputs.get(i);
                if (uniform) {
                    if (in.rule().rowCount(r) > 0) {
                        u.add(in.sets(), 0);
                    }
                    continue;
                }
                int n = in.rule().row(r, buf);
                for (int k = 0; k < n && !u.full; k++) {
                    u.add(in.sets(), buf[k]);
                }
            }
            out[r] = u.finish();
        }
        return new IndexSets(size, cols, out);
    }

    /** Every element on the union of all of {@code in}'s sets (an op with no rule: dense). */
    public static IndexSets all(int size, IndexSets in) {
        Union u = new Union(in.cols);
        for (int e = 0; e < in.size && !u.full; e++) {
            u.add(in, e);
        }
        int[] one = u.finish();
        int[][] out = new int[size][];
        Arrays.fill(out, one);
        return new IndexSets(size, in.cols, out);
    }

    /** Elements that depend on nothing. */
    public static IndexSets none(int size, int cols) {
        int[][] out = new int[size][];
        Arrays.fill(out, EMPTY);
        return new IndexSets(size, cols, out);
    }

    public int size() {
        return size;
    }

    public int cols() {
        return cols;
    }

    /** How many columns element e's set holds. */
    public int count(int e) {
        if (sets == null) {
            return 1;
        }
        int[] s = sets[e];
        int c = 0;
        for (int k = 0; k < s.length; k += 2) {
            c += s[k + 1] - s[k];
        }
        return c;
    }

    /** The nonzeros of the Jacobian whose rows these sets are. */
    public long nonzeros() {
        long n = 0;
        for (int e = 0; e < size; e++) {
            n += count(e);
        }
        return n;
    }

    /** The most columns in one set (a row's nonzeros). */
    public int maxCount() {
        int m = 0;
        for (int e = 0; e < size; e++) {
            m = Math.max(m, count(e));
        }
        return m;
    }

    /** The most sets that hold one column (a column's nonzeros), from the runs' ends. */
    public int maxColumnCount() {
        if (sets == null) {
            return size == 0 ? 0 : 1;
        }
        long[] delta = new long[cols + 1];
        for (int[] s : sets) {
            for (int k = 0; k < s.length; k += 2) {
                delta[s[k]]++;
                delta[s[k + 1]]--;
            }
        }
        long m = 0;
        long run = 0;
        for (int j = 0; j < cols; j++) {
            run += delta[j];
            m = Math.max(m, run);
        }
        return (int) m;
    }

    /** The sets as the rows of a pattern, {@code size x cols}. */
    public Pattern toPattern() {
        long nnz = nonzeros();
        Pattern.checkSize(nnz);
        int[] start = new int[size + 1];
        int[] idx = new int[(int) nnz];
        int w = 0;
        for (int e = 0; e < size; e++) {
            if (sets == null) {
                idx[w++] = e;
            } else {
                int[] s = sets[e];
                for (int k = 0; k < s.length; k += 2) {
                    for (int j = s[k]; j < s[k + 1]; j++) {
                        idx[w++] = j;
                    }
                }
            }
            start[e + 1] = w;
        }
        return new Pattern(size, cols, start, idx);
    }

    /**
     * The union of some elements' sets, as runs gathered then sorted and merged. An input's array
     * met twice in a row is taken once; a set that holds every column ends the union early (a
     * saturated set, which deep networks reach after a few layers); a result equal to its one input
     * array is that array, and results are shared through a small table of recent ones.
     */
    private static final class Union {
        private final int cols;
        private final int[] universe;
        private final int[][] recent = new int[4096][];
        private long[] runs = new long[64];
        private int n;
        private int[] only;
        private int distinct;
        private int[] last;
        private boolean sorted;
        boolean full;

        Union(int cols) {
            this.cols = cols;
            this.universe = new int[] {0, cols};
        }

        void reset() {
            n = 0;
            only = null;
            distinct = 0;
            last = null;
            sorted = true;
            full = false;
        }

        void add(IndexSets in, int e) {
            if (in.sets == null) {
                push(e, e + 1);
                distinct = 2;
                return;
            }
            int[] s = in.sets[e];
            if (s == last || s.length == 0) {
                return;
            }
            last = s;
            if (s.length == 2 && s[0] == 0 && s[1] == cols) {
                full = true;
                return;
            }
            if (s != only) {
                distinct++;
                only = s;
            }
            for (int k = 0; k < s.length; k += 2) {
                push(s[k], s[k + 1]);
            }
        }

        private void push(int start, int end) {
            if (n == runs.length) {
                runs = Arrays.copyOf(runs, n * 2);
            }
            if (n > 0 && sorted && (int) runs[n - 1] == start && (int) (runs[n - 1] >>> 32) <= start) {
                runs[n - 1] = (runs[n - 1] & 0xFFFFFFFF00000000L) | end; // the run before, extended
                return;
            }
            long r = (long) start << 32 | end;
            sorted &= n == 0 || runs[n - 1] <= r;
            runs[n++] = r;
        }

        int[] finish() {
            if (full) {
                return universe;
            }
            if (n == 0) {
                return EMPTY;
            }
            if (distinct == 1) {
                return only;
            }
            if (!sorted) {
                Arrays.sort(runs, 0, n);
            }
            int m = 0;
            long cur = runs[0];
            for (int k = 1; k < n; k++) {
                long r = runs[k];
                int start = (int) (r >>> 32);
                int end = (int) cur;
                if (start <= end) {
                    cur = (cur & 0xFFFFFFFF00000000L) | Math.max(end, (int) r);
                } else {
                    runs[m++] = cur;
                    cur = r;
                }
            }
            runs[m++] = cur;
            if (m == 1 && (int) (runs[0] >>> 32) == 0 && (int) runs[0] == cols) {
                return universe;
            }
            int[] out = new int[2 * m];
            for (int k = 0; k < m; k++) {
                out[2 * k] = (int) (runs[k] >>> 32);
                out[2 * k + 1] = (int) runs[k];
            }
            int slot = Arrays.hashCode(out) & (recent.length - 1);
            int[] seen = recent[slot];
            if (seen != null && Arrays.equals(seen, out)) {
                return seen;
            }
            recent[slot] = out;
            return out;
        }
    }
}
