package io.gradscope.engine.jacobian;

import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import java.util.Random;

/** Test matrices: bands, grids and random ones. */
final class Matrices {
    private Matrices() {
    }

    /** n x n with l diagonals below the main one and u above. */
    static Pattern band(int n, int l, int u) {
        Pattern.Builder b = new Pattern.Builder(n, n);
        for (int i = 0; i < n; i++) {
            for (int j = Math.max(0, i - l); j <= Math.min(n - 1, i + u); j++) {
                b.add(j);
            }
            b.endRow();
        }
        return b.build();
    }

    /** The five-point Laplacian of a k x k grid (k² x k²). */
    static Pattern laplacian(int k) {
        Pattern.Builder b = new Pattern.Builder(k * k, k * k);
        for (int x = 0; x < k; x++) {
            for (int y = 0; y < k; y++) {
                b.add(x * k + y);
                if (x > 0) {
                    b.add((x - 1) * k + y);
                }
                if (x < k - 1) {
                    b.add((x + 1) * k + y);
                }
                if (y > 0) {
                    b.add(x * k + y - 1);
                }
                if (y < k - 1) {
                    b.add(x * k + y + 1);
                }
                b.endRow();
            }
        }
        return b.build();
    }

    static Pattern random(Random r, int m, int n, double density) {
        Pattern.Builder b = new Pattern.Builder(m, n);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                if (r.nextDouble() < density) {
                    b.add(j);
                }
            }
            b.endRow();
        }
        return b.build();
    }

    /** Random nonzero values on a pattern. */
    static SparseMatrix values(Random r, Pattern p) {
        double[] v = new double[p.nnz()];
        for (int k = 0; k < v.length; k++) {
            v[k] = (r.nextBoolean() ? 1 : -1) * (0.5 + r.nextDouble());
        }
        return new SparseMatrix(p, v);
    }

    /** Random symmetric values on a symmetric pattern. */
    static SparseMatrix symmetricValues(Random r, Pattern p) {
        double[] v = new double[p.nnz()];
        for (int i = 0; i < p.rows(); i++) {
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                int j = p.column(k);
                if (j >= i) {
                    v[k] = (r.nextBoolean() ? 1 : -1) * (0.5 + r.nextDouble());
                    v[p.indexOf(j, i)] = v[k];
                }
            }
        }
        return new SparseMatrix(p, v);
    }
}
