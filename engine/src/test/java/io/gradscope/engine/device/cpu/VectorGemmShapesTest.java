package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * VectorGemm.sgemm on awkward shapes (around MR, FNR and the k block), every operand layout (row-major
 * with padded rows, transposed, general strides, a broadcast row of B), offsets and row ranges of a
 * bigger C, one thread and the pool, against float64 loops. A and B end at their last element, so an
 * over-read throws; C is filled with a marker, so a write outside rows [i0, i1) is seen.
 */
class VectorGemmShapesTest {
    static final float SENTINEL = 12345.5f;

    /** Fails with the count and the first 20 of the failed cases' descriptions, if any. */
    static void assertNoFailures(List<String> fails, int cases) {
        assertTrue(fails.isEmpty(), fails.size() + " of " + cases + " failed:\n"
                + String.join("\n", fails.subList(0, Math.min(20, fails.size()))));
    }

    /** A GEMM under test: computes C rows [i0, i1) and answers true, or declines (false) and writes nothing. */
    interface Gemm {
        boolean run(float[] a, int ao, int ars, int acs, float[] b, int bo, int brs, int bcs, float[] c, int co, int i0,
                    int i1, int n, int k, boolean parallel);
    }

    static final Gemm VECTOR = (a, ao, ars, acs, b, bo, brs, bcs, c, co, i0, i1, n, k, parallel) -> {
        VectorGemm.sgemm(a, ao, ars, acs, b, bo, brs, bcs, c, co, i0, i1, n, k, parallel);
        return true;
    };

    /** Answer of {@link #check} when the GEMM declined and left C as it was. */
    static final String DECLINED = "declined";

    /** One case; returns a failure description or null. */
    static String check(Random r, int m, int n, int k, int layoutA, int layoutB, int ao, int bo, int co, int i0, int i1,
                        boolean parallel) {
        return check(VECTOR, r, m, n, k, layoutA, layoutB, ao, bo, co, i0, i1, parallel);
    }

    /**
     * One case on {@code gemm}; A layout 0 row-major, 1 transposed, 2 general strides; B the same, 2 a
     * broadcast row, 3 general strides.
     */
    static String check(Gemm gemm, Random r, int m, int n, int k, int layoutA, int layoutB, int ao, int bo, int co,
                        int i0, int i1, boolean parallel) {
        // A logical m x k; layout 0 row-major (padded ld), 1 transposed (col-major), 2 general strides
        int lda = k + r.nextInt(3);
        int ldaT = m + r.nextInt(3);
        int ars, acs, aLen;
        if (layoutA == 0) {
            ars = lda; acs = 1; aLen = ao + (m - 1) * lda + k;
        } else if (layoutA == 1) {
            ars = 1; acs = ldaT; aLen = ao + (k - 1) * ldaT + m;
        } else {
            ars = 2 * k + 1; acs = 2; aLen = ao + (m - 1) * ars + (k - 1) * acs + 1;
        }
        int brs, bcs, bLen;
        int ldb = n + r.nextInt(3);
        int ldbT = k + r.nextInt(3);
        if (layoutB == 0) {
            brs = ldb; bcs = 1; bLen = bo + (k - 1) * ldb + n;
        } else if (layoutB == 1) {
            brs = 1; bcs = ldbT; bLen = bo + (n - 1) * ldbT + k;
        } else if (layoutB == 2) {
            brs = 0; bcs = 1; bLen = bo + n; // broadcast row
        } else {
            brs = 2 * n + 3; bcs = 2; bLen = bo + (k - 1) * brs + (n - 1) * bcs + 1;
        }
        // exact end so any over-read near the end throws
        float[] a = new float[aLen];
        float[] b = new float[bLen];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) r.nextGaussian();
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = (float) r.nextGaussian();
        }
        float[] c = new float[co + m * n + 7];
        java.util.Arrays.fill(c, SENTINEL);
        if (!gemm.run(a, ao, ars, acs, b, bo, brs, bcs, c, co, i0, i1, n, k, parallel)) {
            for (float x : c) {
                if (x != SENTINEL) {
                    return "declined, but wrote into C";
                }
            }
            return DECLINED;
        }
        for (int idx = 0; idx < c.length; idx++) {
            int rel = idx - co;
            boolean inside = rel >= i0 * n && rel < i1 * n;
            if (!inside) {
                if (c[idx] != SENTINEL) {
                    return "wrote outside C rows at " + idx;
                }
                continue;
            }
            int i = rel / n;
            int j = rel % n;
            double want = 0;
            double scale = 0;
            for (int p = 0; p < k; p++) {
                double x = a[ao + i * ars + p * acs];
                double y = b[bo + p * brs + j * bcs];
                want += x * y;
                scale += Math.abs(x * y);
            }
            if (!(Math.abs(want - c[idx]) <= 1e-5 * Math.max(1, scale))) {
                return "C(" + i + "," + j + ")=" + c[idx] + " want " + want;
            }
        }
        return null;
    }

    @Test
    void awkwardShapes() {
        Random r = new Random(7);
        int[] ms = {1, 5, 11, 12, 13, 23, 24, 25, 119, 120, 121, 131, 250};
        int[] ns = {1, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 513, 600};
        int[] ks = {1, 2, 3, 17, 255, 256, 257, 300, 513, 784};
        List<String> fails = new ArrayList<>();
        int cases = 0;
        for (int trial = 0; trial < 700; trial++) {
            int m = ms[r.nextInt(ms.length)];
            int n = ns[r.nextInt(ns.length)];
            int k = ks[r.nextInt(ks.length)];
            int la = r.nextInt(3);
            int lb = r.nextInt(4);
            int ao = r.nextInt(3) == 0 ? 0 : r.nextInt(40);
            int bo = r.nextInt(3) == 0 ? 0 : r.nextInt(40);
            int co = r.nextInt(3) == 0 ? 0 : r.nextInt(40);
            int i0 = r.nextBoolean() ? 0 : r.nextInt(m);
            int i1 = r.nextBoolean() ? m : i0 + r.nextInt(m - i0 + 1);
            boolean par = r.nextBoolean();
            String f = check(new Random(trial), m, n, k, la, lb, ao, bo, co, i0, i1, par);
            cases++;
            if (f != null) {
                fails.add("m=" + m + " n=" + n + " k=" + k + " la=" + la + " lb=" + lb + " ao=" + ao + " bo=" + bo + " co=" + co
                        + " i0=" + i0 + " i1=" + i1 + " par=" + par + ": " + f);
            }
        }
        assertNoFailures(fails, cases);
    }

    /** The narrow path (NarrowGemm: n up to a vector): every n, both contiguous layouts of A, tails of m and k. */
    @Test
    void narrowProducts() {
        Random r = new Random(11);
        List<String> fails = new ArrayList<>();
        int cases = 0;
        for (int n = 1; n <= NarrowGemm.MAX_N; n++) {
            for (int m : new int[] {1, 2, 3, 31, 32, 33, 64, 65}) {
                for (int k : new int[] {1, 15, 16, 17, 130}) {
                    int la = cases % 2;
                    int i0 = r.nextBoolean() ? 0 : r.nextInt(m);
                    int i1 = r.nextBoolean() ? m : i0 + r.nextInt(m - i0 + 1);
                    boolean par = r.nextBoolean();
                    String f = check(new Random(cases), m, n, k, la, r.nextInt(4), r.nextInt(5), r.nextInt(5), r.nextInt(5), i0, i1, par);
                    cases++;
                    if (f != null) {
                        fails.add("m=" + m + " n=" + n + " k=" + k + " la=" + la + " i0=" + i0 + " i1=" + i1 + " par=" + par + ": " + f);
                    }
                }
            }
        }
        assertNoFailures(fails, cases);
    }

    /**
     * A non-finite element of A reaches only its own row of C on the narrow path, whose zero-padded
     * columns of B would turn an infinity into a NaN if their results were stored.
     */
    @Test
    void narrowKeepsNonFiniteToItsRow() {
        for (int la = 0; la < 2; la++) {
            int m = 40;
            int n = 10;
            int k = 37;
            float[] a = new float[m * k];
            float[] b = new float[k * n];
            for (int i = 0; i < a.length; i++) {
                a[i] = 0.5f;
            }
            for (int i = 0; i < b.length; i++) {
                b[i] = 0.25f;
            }
            int ars = la == 0 ? k : 1;
            int acs = la == 0 ? 1 : m;
            a[7 * ars + 3 * acs] = Float.POSITIVE_INFINITY;
            a[38 * ars + 36 * acs] = Float.NaN;
            float[] c = new float[m * n];
            VectorGemm.sgemm(a, 0, ars, acs, b, 0, n, 1, c, 0, 0, m, n, k, false);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    float want = i == 7 ? Float.POSITIVE_INFINITY : i == 38 ? Float.NaN : 0.5f * 0.25f * k;
                    assertTrue(Float.compare(c[i * n + j], want) == 0 || Math.abs(c[i * n + j] - want) < 1e-4,
                            "layout " + la + ": C(" + i + "," + j + ") = " + c[i * n + j] + ", want " + want);
                }
            }
        }
    }

    /** Many threads calling at once (each its own packed buffers), parallel and not. */
    @Test
    void concurrentCallers() throws Exception {
        List<Thread> ts = new ArrayList<>();
        List<String> fails = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 6; t++) {
            final int id = t;
            Thread th = new Thread(() -> {
                Random r = new Random(100 + id);
                for (int i = 0; i < 40; i++) {
                    int m = 1 + r.nextInt(200);
                    int n = 1 + r.nextInt(300);
                    int k = 1 + r.nextInt(600);
                    String f = check(r, m, n, k, r.nextInt(3), r.nextInt(4), r.nextInt(5), r.nextInt(5), r.nextInt(5), 0, m,
                            r.nextBoolean());
                    if (f != null) {
                        fails.add(m + "x" + k + "x" + n + ": " + f);
                    }
                }
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join();
        }
        assertTrue(fails.isEmpty(), String.join("\n", fails));
    }
}
