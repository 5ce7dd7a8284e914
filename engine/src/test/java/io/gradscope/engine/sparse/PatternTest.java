package io.gradscope.engine.sparse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Patterns against dense boolean matrices computed independently. */
class PatternTest {

    static boolean[] random(Random r, int m, int n, double density) {
        boolean[] d = new boolean[m * n];
        for (int i = 0; i < d.length; i++) {
            d[i] = r.nextDouble() < density;
        }
        return d;
    }

    static Pattern of(boolean[] d, int m, int n) {
        double[] v = new double[d.length];
        for (int i = 0; i < d.length; i++) {
            v[i] = d[i] ? 1 : 0;
        }
        return Pattern.nonzeros(v, m, n);
    }

    @Test
    void productTransposeAndUnionMatchDenseBooleanAlgebra() {
        Random r = new Random(1);
        for (int t = 0; t < 50; t++) {
            int m = 1 + r.nextInt(7);
            int k = 1 + r.nextInt(7);
            int n = 1 + r.nextInt(7);
            boolean[] a = random(r, m, k, 0.3);
            boolean[] b = random(r, k, n, 0.3);
            boolean[] c = random(r, m, k, 0.3);
            boolean[] ab = new boolean[m * n];
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    for (int q = 0; q < k; q++) {
                        ab[i * n + j] |= a[i * k + q] && b[q * n + j];
                    }
                }
            }
            boolean[] at = new boolean[k * m];
            boolean[] ac = new boolean[m * k];
            for (int i = 0; i < m; i++) {
                for (int q = 0; q < k; q++) {
                    at[q * m + i] = a[i * k + q];
                    ac[i * k + q] = a[i * k + q] || c[i * k + q];
                }
            }
            Pattern pa = of(a, m, k);
            assertArrayEquals(ab, pa.times(of(b, k, n)).toDense());
            assertArrayEquals(at, pa.transpose().toDense());
            assertArrayEquals(ac, pa.union(of(c, m, k)).toDense());
            assertTrue(pa.subsetOf(pa.union(of(c, m, k))));
            assertEquals(pa, pa.transpose().transpose());
        }
    }

    @Test
    void buildersSortAndMergeRepeats() {
        Pattern p = new Pattern.Builder(2, 5).add(3).add(1).add(3).endRow().add(4).endRow().build();
        assertArrayEquals(new int[] {1, 3}, p.row(0));
        assertArrayEquals(new int[] {4}, p.row(1));
        assertEquals(3, p.nnz());
        Pattern q = Pattern.fromCoordinates(2, 5, new int[] {1, 0, 0, 0}, new int[] {4, 3, 1, 3});
        assertEquals(p, q);
        assertTrue(p.contains(0, 3) && !p.contains(0, 2));
        assertEquals(2, p.maxRowCount());
        assertEquals(1, p.maxColumnCount());
    }

    @Test
    void gatherScatterAndGroups() {
        Pattern g = Pattern.gather(new int[] {2, -1, 0}, 3);
        assertArrayEquals(new boolean[] {false, false, true, false, false, false, true, false, false}, g.toDense());
        Pattern s = Pattern.scatter(new int[] {0, 0, 1, -1}, 2);
        assertArrayEquals(new boolean[] {true, true, false, false, false, false, true, false}, s.toDense());
        Pattern blocks = Pattern.sameGroup(new int[] {0, 1, 0}, new int[] {1, 0, 0, -1}, 2);
        assertArrayEquals(new int[] {1, 2}, blocks.row(0));
        assertArrayEquals(new int[] {0}, blocks.row(1));
        assertArrayEquals(new int[] {1, 2}, blocks.row(2));
    }

    @Test
    void symmetry() {
        Pattern p = Pattern.fromCoordinates(3, 3, new int[] {0, 1, 2}, new int[] {1, 0, 2});
        assertTrue(p.isSymmetric());
        Pattern q = Pattern.fromCoordinates(3, 3, new int[] {0, 2}, new int[] {1, 2});
        assertFalse(q.isSymmetric());
        assertEquals(p, q.symmetrized());
        assertFalse(Pattern.empty(2, 3).isSymmetric());
    }
}
