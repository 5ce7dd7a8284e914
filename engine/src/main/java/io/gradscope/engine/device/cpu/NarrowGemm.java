package io.gradscope.engine.device.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * GEMM with few columns (n ≤ {@link #MAX_N}: the logits of a classifier, its weight's gradient),
 * where {@link VectorGemm} would pad each row of C to two vectors and pack all of A for a few
 * products per element.
 *
 * <p>Note [Narrow products]: nothing of A is packed; it is read where it lies, and only B (k × n,
 * small) is copied, zero padded. No result is summed across the lanes of a vector: a horizontal
 * sum per element of C (dot products along k) ran as plain Java objects, not vector instructions.
 * <ul>
 * <li>A's rows contiguous ({@code x @ W} with W of n columns): a row of C is one vector (n of its W
 * lanes real), summed over k from an element of A broadcast times a row of B; eight rows at a
 * time, so the adds do not wait on each other. A's eight elements per step are read along its
 * rows, in place.
 * <li>A's columns contiguous ({@code hᵀ @ g}, a weight's gradient): vectorized along m, two vectors
 * of rows of A times four broadcast elements of B at a time, as the wide kernel does with the
 * roles of m and n exchanged; the last rows (fewer than two vectors) are copied into a
 * zero-padded block first.
 * </ul>
 * The padded columns of B are zero and their results are never stored, so whatever A holds (an
 * infinity, a NaN) reaches only the elements of C it belongs to.
 */
final class NarrowGemm {
    private NarrowGemm() {
    }

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int W = FS.length();
    /** The most columns this path takes: one vector, half of the wide kernel's row of two. */
    static final int MAX_N = W;
    /** Below this many flops the product runs on the calling thread only. */
    private static final long PARALLEL_FLOPS = 1L << 20;

    /** True when this path takes the product: few columns, and A's rows or its columns contiguous. */
    static boolean takes(int n, int ars, int acs) {
        return n <= MAX_N && (acs == 1 || ars == 1);
    }

    /** C[i0:i1, 0:n] = A[i0:i1, 0:k] B[0:k, 0:n]; C row-major with n columns at co. See Note [Narrow products]. */
    static void sgemm(float[] a, int ao, int ars, int acs, float[] b, int bo, int brs, int bcs,
                      float[] c, int co, int i0, int i1, int n, int k, boolean parallel) {
        int m = i1 - i0;
        boolean rows = acs == 1;
        // B copied zero padded: k rows of W (a vector each) for the rows of A, of np for broadcasts.
        int np = rows ? W : (n + 3) / 4 * 4;
        float[] bq = new float[np * k];
        for (int q = 0; q < k; q++) {
            for (int j = 0; j < n; j++) {
                bq[q * np + j] = b[bo + q * brs + j * bcs];
            }
        }
        int per = rows ? 8 : 2 * W;
        int blocks = (m + per - 1) / per;
        boolean par = parallel && 2L * m * n * k >= PARALLEL_FLOPS;
        int tasks = par ? Math.min(blocks, 4 * CpuThreads.THREADS) : 1;
        CpuThreads.parallelFor(tasks, t -> {
            int r0 = i0 + (int) ((long) blocks * t / tasks) * per;
            int r1 = Math.min(i1, i0 + (int) ((long) blocks * (t + 1) / tasks) * per);
            if (rows) {
                byRows(a, ao, ars, bq, c, co, r0, r1, n, k);
            } else {
                byColumns(a, ao, acs, bq, c, co, r0, r1, n, np, k);
            }
        });
    }

    /**
     * Rows [r0, r1) of C for A with contiguous rows: eight rows at a time, each a vector of C's row
     * (n of its W lanes real) summed over k from broadcast elements of A times B's rows (k rows of W,
     * zero padded). The last rows of a block past r1 repeat row r1 − 1 and are not stored.
     */
    private static void byRows(float[] a, int ao, int ars, float[] bw, float[] c, int co, int r0, int r1,
                               int n, int k) {
        float[] out = new float[8 * W];
        int last = ao + (r1 - 1) * ars;
        for (int i = r0; i < r1; i += 8) {
            int x0 = ao + i * ars;
            rows8(k, a, x0, Math.min(last, x0 + ars), Math.min(last, x0 + 2 * ars), Math.min(last, x0 + 3 * ars),
                    Math.min(last, x0 + 4 * ars), Math.min(last, x0 + 5 * ars), Math.min(last, x0 + 6 * ars),
                    Math.min(last, x0 + 7 * ars), bw, out, 0, W);
            for (int l = 0; l < Math.min(8, r1 - i); l++) {
                System.arraycopy(out, l * W, c, co + (i + l) * n, n);
            }
        }
    }

    /** out[l·W ..] = Σ_q A[row l, q] · bw[q·W ..] for the eight rows of A at x0..x7 (contiguous along k). */
    // BEGIN GENERATED rows8 (MicroKernels, engine tests: edit it, not this method)
    private static void rows8(int kc, float[] a, int x0, int x1, int x2, int x3, int x4, int x5, int x6, int x7, float[] bw, float[] out, int co, int ldc) {
        FloatVector c0_0 = FloatVector.zero(FS);
        FloatVector c1_0 = FloatVector.zero(FS);
        FloatVector c2_0 = FloatVector.zero(FS);
        FloatVector c3_0 = FloatVector.zero(FS);
        FloatVector c4_0 = FloatVector.zero(FS);
        FloatVector c5_0 = FloatVector.zero(FS);
        FloatVector c6_0 = FloatVector.zero(FS);
        FloatVector c7_0 = FloatVector.zero(FS);
        for (int q = 0; q < kc; q++) {
            FloatVector b0 = FloatVector.fromArray(FS, bw, q * W);
            FloatVector x;
            x = FloatVector.broadcast(FS, a[x0 + q]);
            c0_0 = b0.fma(x, c0_0);
            x = FloatVector.broadcast(FS, a[x1 + q]);
            c1_0 = b0.fma(x, c1_0);
            x = FloatVector.broadcast(FS, a[x2 + q]);
            c2_0 = b0.fma(x, c2_0);
            x = FloatVector.broadcast(FS, a[x3 + q]);
            c3_0 = b0.fma(x, c3_0);
            x = FloatVector.broadcast(FS, a[x4 + q]);
            c4_0 = b0.fma(x, c4_0);
            x = FloatVector.broadcast(FS, a[x5 + q]);
            c5_0 = b0.fma(x, c5_0);
            x = FloatVector.broadcast(FS, a[x6 + q]);
            c6_0 = b0.fma(x, c6_0);
            x = FloatVector.broadcast(FS, a[x7 + q]);
            c7_0 = b0.fma(x, c7_0);
        }
        c0_0.intoArray(out, co);
        co += ldc;
        c1_0.intoArray(out, co);
        co += ldc;
        c2_0.intoArray(out, co);
        co += ldc;
        c3_0.intoArray(out, co);
        co += ldc;
        c4_0.intoArray(out, co);
        co += ldc;
        c5_0.intoArray(out, co);
        co += ldc;
        c6_0.intoArray(out, co);
        co += ldc;
        c7_0.intoArray(out, co);
    }
    // END GENERATED rows8

    /**
     * Rows [r0, r1) of C for A with contiguous columns (A[i, q] at ao + i + q·acs): 2W rows by four
     * columns at a time; a last block of fewer rows is copied into a zero-padded block first.
     */
    private static void byColumns(float[] a, int ao, int acs, float[] bp, float[] c, int co, int r0, int r1,
                                  int n, int np, int k) {
        int rows = 2 * W;
        float[] out = new float[4 * rows];
        float[] tail = null;
        for (int i = r0; i < r1; i += rows) {
            int mr = Math.min(rows, r1 - i);
            float[] src = a;
            int off = ao + i;
            int ld = acs;
            if (mr < rows) {
                tail = new float[rows * k];
                for (int q = 0; q < k; q++) {
                    System.arraycopy(a, ao + i + q * acs, tail, q * rows, mr);
                }
                src = tail;
                off = 0;
                ld = rows;
            }
            for (int j = 0; j < np; j += 4) {
                columns4(k, src, off, ld, bp, j, np, out, 0, rows);
                for (int jj = j; jj < Math.min(n, j + 4); jj++) {
                    for (int l = 0; l < mr; l++) {
                        c[co + (i + l) * n + jj] = out[(jj - j) * rows + l];
                    }
                }
            }
        }
    }

    /** out[j·2W + l] = Σ_q A[l, q] · bp[q·np + j0 + j] for l < 2W, j < 4: two vectors of rows of A, four broadcasts. */
    // BEGIN GENERATED columns4 (MicroKernels, engine tests: edit it, not this method)
    private static void columns4(int kc, float[] a, int off, int ld, float[] bp, int j0, int np, float[] out, int co, int ldc) {
        FloatVector c0_0 = FloatVector.zero(FS); FloatVector c0_1 = FloatVector.zero(FS);
        FloatVector c1_0 = FloatVector.zero(FS); FloatVector c1_1 = FloatVector.zero(FS);
        FloatVector c2_0 = FloatVector.zero(FS); FloatVector c2_1 = FloatVector.zero(FS);
        FloatVector c3_0 = FloatVector.zero(FS); FloatVector c3_1 = FloatVector.zero(FS);
        for (int q = 0; q < kc; q++) {
            int at = off + q * ld;
            FloatVector b0 = FloatVector.fromArray(FS, a, at);
            FloatVector b1 = FloatVector.fromArray(FS, a, at + 1 * W);
            int e = q * np + j0;
            FloatVector x;
            x = FloatVector.broadcast(FS, bp[e]);
            c0_0 = b0.fma(x, c0_0);
            c0_1 = b1.fma(x, c0_1);
            x = FloatVector.broadcast(FS, bp[e + 1]);
            c1_0 = b0.fma(x, c1_0);
            c1_1 = b1.fma(x, c1_1);
            x = FloatVector.broadcast(FS, bp[e + 2]);
            c2_0 = b0.fma(x, c2_0);
            c2_1 = b1.fma(x, c2_1);
            x = FloatVector.broadcast(FS, bp[e + 3]);
            c3_0 = b0.fma(x, c3_0);
            c3_1 = b1.fma(x, c3_1);
        }
        c0_0.intoArray(out, co);
        c0_1.intoArray(out, co + 1 * W);
        co += ldc;
        c1_0.intoArray(out, co);
        c1_1.intoArray(out, co + 1 * W);
        co += ldc;
        c2_0.intoArray(out, co);
        c2_1.intoArray(out, co + 1 * W);
        co += ldc;
        c3_0.intoArray(out, co);
        c3_1.intoArray(out, co + 1 * W);
    }
    // END GENERATED columns4
}
