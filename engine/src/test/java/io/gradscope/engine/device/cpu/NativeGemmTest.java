package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NativeGemm on the system's BLAS (skipped where none loads; .ci/run installs OpenBLAS): every
 * layout it takes against float64 loops (VectorGemmShapesTest.check), the layouts it declines left
 * untouched, and its bounds guard, the only thing between a wrong view and native code reading
 * past an array.
 */
class NativeGemmTest {
    private static final VectorGemmShapesTest.Gemm NATIVE = (a, ao, ars, acs, b, bo, brs, bcs, c, co, i0, i1, n, k, par) ->
            NativeGemm.product(a, ao + i0 * ars, ars, acs, b, bo, brs, bcs, c, co + i0 * n, i1 - i0, n, k, par);

    @BeforeEach
    void needsBlas() {
        assumeTrue(NativeGemm.loaded(), "float32 GEMM: " + CpuBackend.floatGemm());
    }

    @Test
    void everyLayoutItTakes() {
        Random r = new Random(3);
        int[] ms = {1, 2, 7, 128, 131};
        int[] ns = {1, 10, 15, 16, 17, 31, 32, 33, 100, 512};
        int[] ks = {1, 2, 17, 256, 300};
        List<String> fails = new ArrayList<>();
        int cases = 0;
        for (int trial = 0; trial < 400; trial++) {
            int m = ms[r.nextInt(ms.length)];
            int n = ns[r.nextInt(ns.length)];
            int k = ks[r.nextInt(ks.length)];
            int la = r.nextInt(2);
            int lb = r.nextInt(2);
            int i0 = r.nextBoolean() ? 0 : r.nextInt(m);
            boolean split = r.nextBoolean();
            String f = VectorGemmShapesTest.check(NATIVE, new Random(trial), m, n, k, la, lb, r.nextInt(9), r.nextInt(9),
                    r.nextInt(9), i0, m, split);
            cases++;
            if (f != null) {
                fails.add("m=" + m + " n=" + n + " k=" + k + " la=" + la + " lb=" + lb + " i0=" + i0 + " split=" + split
                        + ": " + f);
            }
        }
        // Big enough for the pool to split (rows where m >= n, else columns), at sizes that do not divide evenly.
        for (int n : new int[] {32, 33, 47, 100, 513}) {
            for (int layout = 0; layout < 4; layout++) {
                String f = VectorGemmShapesTest.check(NATIVE, new Random(n + layout), 131, n, 300, layout / 2, layout % 2,
                        3, 5, 7, 0, 131, true);
                cases++;
                if (f != null) {
                    fails.add("split n=" + n + " layout " + layout + ": " + f);
                }
            }
        }
        VectorGemmShapesTest.assertNoFailures(fails, cases);
    }

    /** General strides (either operand) and a broadcast row of B have no BLAS layout: declined, C untouched. */
    @Test
    void declinesWhatBlasCannotRead() {
        Random r = new Random(5);
        for (int[] l : new int[][] {{2, 0}, {0, 2}, {0, 3}, {1, 3}, {2, 1}}) {
            String f = VectorGemmShapesTest.check(NATIVE, r, 20, 40, 30, l[0], l[1], 1, 2, 3, 0, 20, true);
            assertEquals(VectorGemmShapesTest.DECLINED, f, "layout A " + l[0] + ", B " + l[1]);
        }
    }

    /**
     * The guard is exact: an operand ending at the array's last element is taken (netlib's own check,
     * ld × columns, would refuse it), and one element short is declined with C left alone.
     */
    @Test
    void boundsAreExact() {
        int m = 3;
        int n = 5;
        int k = 4;
        int lda = 6;
        // A: rows of 4 at a stride of 6, the last row ending the array (netlib's check wants 3 × 6 = 18).
        float[] a = new float[(m - 1) * lda + k];
        float[] b = new float[k * n];
        for (int i = 0; i < a.length; i++) {
            a[i] = i % 5 - 2;
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = i % 3 - 1;
        }
        float[] c = new float[m * n];
        assertTrue(NativeGemm.product(a, 0, lda, 1, b, 0, n, 1, c, 0, m, n, k, false));
        float[] want = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                for (int p = 0; p < k; p++) {
                    want[i * n + j] += a[i * lda + p] * b[p * n + j];
                }
            }
        }
        assertArrayEquals(want, c, 0f);
        float[] shortA = Arrays.copyOf(a, a.length - 1);
        float[] shortB = Arrays.copyOf(b, b.length - 1);
        float[] shortC = new float[m * n - 1];
        float[] untouched = new float[m * n];
        Arrays.fill(untouched, -7f);
        float[] c2 = untouched.clone();
        assertFalse(NativeGemm.product(shortA, 0, lda, 1, b, 0, n, 1, c2, 0, m, n, k, false));
        assertFalse(NativeGemm.product(a, 0, lda, 1, shortB, 0, n, 1, c2, 0, m, n, k, true));
        assertFalse(NativeGemm.product(a, 0, lda, 1, b, 1, n, 1, c2, 0, m, n, k, false), "B's offset pushes it past the end");
        assertFalse(NativeGemm.product(a, 0, lda, 1, b, 0, n, 1, shortC, 0, m, n, k, false));
        assertFalse(NativeGemm.product(a, -1, lda, 1, b, 0, n, 1, c2, 0, m, n, k, false), "a negative offset");
        assertArrayEquals(untouched, c2, 0f);
    }

    /** An infinity in A reaches only its own row: the column blocks the pool splits do not mix rows. */
    @Test
    void nonFiniteStaysInItsRow() {
        int m = 64;
        int n = 256;
        int k = 160;
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        Arrays.fill(a, 0.5f);
        Arrays.fill(b, 0.25f);
        a[3 * k + 7] = Float.POSITIVE_INFINITY;
        float[] c = new float[m * n];
        assertTrue(NativeGemm.product(a, 0, k, 1, b, 0, n, 1, c, 0, m, n, k, true));
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float want = i == 3 ? Float.POSITIVE_INFINITY : k * 0.125f; // 0.125 × 160 = 20, exact
                assertEquals(want, c[i * n + j], 0f, "C(" + i + "," + j + ")");
            }
        }
    }
}
