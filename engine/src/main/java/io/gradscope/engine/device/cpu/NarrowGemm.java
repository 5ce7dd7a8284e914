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
            rows8(a, x0, Math.min(last, x0 + ars), Math.min(last, x0 + 2 * ars), Math.min(last, x0 + 3 * ars),
                    Math.min(last, x0 + 4 * ars), Math.min(last, x0 + 5 * ars), Math.min(last, x0 + 6 * ars),
                    Math.min(last, x0 + 7 * ars), bw, k, out);
            for (int l = 0; l < Math.min(8, r1 - i); l++) {
                System.arraycopy(out, l * W, c, co + (i + l) * n, n);
            }
        }
    }

    /** out[l·W ..] = Σ_q A[row l, q] · bw[q·W ..] for the eight rows of A at x0..x7 (contiguous along k). */
    private static void rows8(float[] a, int x0, int x1, int x2, int x3, int x4, int x5, int x6, int x7,
                              float[] bw, int k, float[] out) {
        FloatVector s0 = FloatVector.zero(FS);
        FloatVector s1 = FloatVector.zero(FS);
        FloatVector s2 = FloatVector.zero(FS);
        FloatVector s3 = FloatVector.zero(FS);
        FloatVector s4 = FloatVector.zero(FS);
        FloatVector s5 = FloatVector.zero(FS);
        FloatVector s6 = FloatVector.zero(FS);
        FloatVector s7 = FloatVector.zero(FS);
        for (int q = 0; q < k; q++) {
            FloatVector y = FloatVector.fromArray(FS, bw, q * W);
            s0 = y.fma(FloatVector.broadcast(FS, a[x0 + q]), s0);
            s1 = y.fma(FloatVector.broadcast(FS, a[x1 + q]), s1);
            s2 = y.fma(FloatVector.broadcast(FS, a[x2 + q]), s2);
            s3 = y.fma(FloatVector.broadcast(FS, a[x3 + q]), s3);
            s4 = y.fma(FloatVector.broadcast(FS, a[x4 + q]), s4);
            s5 = y.fma(FloatVector.broadcast(FS, a[x5 + q]), s5);
            s6 = y.fma(FloatVector.broadcast(FS, a[x6 + q]), s6);
            s7 = y.fma(FloatVector.broadcast(FS, a[x7 + q]), s7);
        }
        s0.intoArray(out, 0);
        s1.intoArray(out, W);
        s2.intoArray(out, 2 * W);
        s3.intoArray(out, 3 * W);
        s4.intoArray(out, 4 * W);
        s5.intoArray(out, 5 * W);
        s6.intoArray(out, 6 * W);
        s7.intoArray(out, 7 * W);
    }

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
                columns4(src, off, ld, bp, j, np, k, out);
                for (int jj = j; jj < Math.min(n, j + 4); jj++) {
                    for (int l = 0; l < mr; l++) {
                        c[co + (i + l) * n + jj] = out[(jj - j) * rows + l];
                    }
                }
            }
        }
    }

    /** out[j·2W + l] = Σ_q A[l, q] · bp[q·np + j0 + j] for l < 2W, j < 4: two vectors of rows of A, four broadcasts. */
    private static void columns4(float[] a, int off, int ld, float[] bp, int j0, int np, int k, float[] out) {
        FloatVector s00 = FloatVector.zero(FS);
        FloatVector s01 = FloatVector.zero(FS);
        FloatVector s10 = FloatVector.zero(FS);
        FloatVector s11 = FloatVector.zero(FS);
        FloatVector s20 = FloatVector.zero(FS);
        FloatVector s21 = FloatVector.zero(FS);
        FloatVector s30 = FloatVector.zero(FS);
        FloatVector s31 = FloatVector.zero(FS);
        for (int q = 0; q < k; q++) {
            FloatVector u = FloatVector.fromArray(FS, a, off + q * ld);
            FloatVector v = FloatVector.fromArray(FS, a, off + q * ld + W);
            int e = q * np + j0;
            FloatVector x = FloatVector.broadcast(FS, bp[e]);
            s00 = u.fma(x, s00);
            s01 = v.fma(x, s01);
            x = FloatVector.broadcast(FS, bp[e + 1]);
            s10 = u.fma(x, s10);
            s11 = v.fma(x, s11);
            x = FloatVector.broadcast(FS, bp[e + 2]);
            s20 = u.fma(x, s20);
            s21 = v.fma(x, s21);
            x = FloatVector.broadcast(FS, bp[e + 3]);
            s30 = u.fma(x, s30);
            s31 = v.fma(x, s31);
        }
        int r = 2 * W;
        s00.intoArray(out, 0);
        s01.intoArray(out, W);
        s10.intoArray(out, r);
        s11.intoArray(out, r + W);
        s20.intoArray(out, 2 * r);
        s21.intoArray(out, 2 * r + W);
        s30.intoArray(out, 3 * r);
        s31.intoArray(out, 3 * r + W);
    }
}
