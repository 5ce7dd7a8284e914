package io.gradscope.engine.jacobian;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The Jacobian of one value of a recorded run with respect to another, both named by the trace's
 * ids ({@link RecordedRun#jacobian(long, long, Sparsity, ColoringChoice)}): its pattern, the
 * coloring (with the lower bound and whether it is valid), the values, the compressed matrix's
 * pattern (output × colors for a column coloring, colors × input for a row one), the products it
 * took, whether {@code of} depends on {@code wrt} at all, and the recorded values between the two
 * with which of their elements depend on which.
 *
 * <pre>{@code
 * RunJacobian j = RecordedRun.of(run.trace()).jacobian(hId, w1Id, Sparsity.GLOBAL, ColoringChoice.CHEAPER);
 * double d = j.values().get(i, k);
 * SortedSet<Long> via = j.path(i, k);           // the ids its paths pass through, the two ends included
 * }</pre>
 */
public record RunJacobian(long of, long wrt, int[] ofShape, int[] wrtShape, Pattern pattern, Coloring coloring,
                          int lowerBound, boolean valid, SparseMatrix values, Pattern compressed, int vjps, int jvps,
                          boolean depends, List<Between> between) {
    /**
     * A recorded value on the way from {@code wrt} to {@code of} (by its trace id): {@code fromWrt}
     * (wrt × its elements) says which of its elements depend on each element of wrt, {@code toOf}
     * (of × its elements) which of its elements each element of of depends on; both null when not
     * kept (too many values between, then a nonzero's paths pass through all of them).
     */
    public record Between(long node, Pattern fromWrt, Pattern toOf) {
    }

    public int rows() {
        return pattern.rows();
    }

    public int cols() {
        return pattern.cols();
    }

    /** VJPs or JVPs: how many products the evaluation took. */
    public int products() {
        return vjps + jvps;
    }

    /** The ids of the values on the paths along which element {@code j} of wrt reaches element {@code i} of of, the ends included. */
    public SortedSet<Long> path(int i, int j) {
        SortedSet<Long> lit = new TreeSet<>();
        if (!pattern.contains(i, j)) {
            return lit;
        }
        lit.add(wrt);
        lit.add(of);
        for (Between b : between) {
            if (b.fromWrt() == null || meet(b.fromWrt().row(j), b.toOf().row(i))) {
                lit.add(b.node());
            }
        }
        return lit;
    }

    /** Whether two ascending index lists share an element. */
    private static boolean meet(int[] a, int[] b) {
        int x = 0;
        int y = 0;
        while (x < a.length && y < b.length) {
            if (a[x] == b[y]) {
                return true;
            }
            if (a[x] < b[y]) {
                x++;
            } else {
                y++;
            }
        }
        return false;
    }

    /** The pattern of the compressed matrix: J·S (output × colors) for columns, Sᵀ·J (colors × input) for rows. */
    public static Pattern compressedPattern(Pattern p, Coloring c) {
        int[] ri = new int[p.nnz()];
        int[] ci = new int[p.nnz()];
        boolean byColumn = c.kind() != Coloring.Kind.ROW;
        for (int i = 0; i < p.rows(); i++) {
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                ri[k] = byColumn ? i : c.color(i);
                ci[k] = byColumn ? c.color(p.column(k)) : p.column(k);
            }
        }
        return byColumn ? Pattern.fromCoordinates(p.rows(), c.count(), ri, ci) : Pattern.fromCoordinates(c.count(), p.cols(), ri, ci);
    }
}
