package io.gradscope.engine.device.cpu;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The float64 twin of {@link VectorGemm} (same blocking and kernel shape, DoubleVector lanes).
 * GEMM with the Vector API (jdk.incubator.vector): operands packed into slivers, a register-blocked
 * micro-kernel of MR rows × two vectors of columns, blocked for the caches (BLIS order: jc, pc, ic,
 * jr, ir). Loaded only when the module is present; {@link CpuMatmul} falls back to plain loops.
 *
 * <p>Note [Inlined write-back]: the accumulators live in locals and are written back inside the
 * kernel method; handing vectors to a helper the JIT does not inline costs a factor of five.
 */
final class VectorDgemm {
    private VectorDgemm() {
    }

    private static final VectorSpecies<Double> DS = DoubleVector.SPECIES_PREFERRED;
    static final int MR = 8;
    private static final int DNR = 2 * DS.length();
    private static final int KC = 256;
    private static final int MC = 128;
    private static final int NC = 2048;

    /** True when the vectors are wide enough to be worth it (AVX2 or better). */
    static boolean useful() {
        return DS.length() >= 8;
    }

    private static final ThreadLocal<double[][]> BUFFERS = ThreadLocal.withInitial(() -> new double[3][0]);

    /** A per-thread scratch array of at least {@code n} floats (reused: no page faults per call). */
    private static double[] scratch(int which, int n) {
        double[][] b = BUFFERS.get();
        if (b[which].length < n) {
            b[which] = new double[n];
        }
        return b[which];
    }

    /**
     * C[i0:i1, 0:n] = A[i0:i1, 0:k] B[0:k, 0:n] for strided A and B; C row-major with n columns at co.
     * With {@code parallel}, each packed panel of B is shared and the row blocks run on the pool.
     */
    static void dgemm(double[] a, int ao, int ars, int acs, double[] b, int bo, int brs, int bcs,
                      double[] c, int co, int i0, int i1, int n, int k, boolean parallel) {
        if ((long) (i1 - i0) * n * k <= SMALL) {
            small(a, ao, ars, acs, b, bo, brs, bcs, c, co, i0, i1, n, k);
            return;
        }
        vector(a, ao, ars, acs, b, bo, brs, bcs, c, co, i0, i1, n, k, parallel);
    }

    /** The most multiply-adds (m·n·k) of a product that {@link #small} computes. */
    static final long SMALL = 4096;

    /**
     * Note [Small products]: {@link #dgemm} for a product of at most {@link #SMALL} multiply-adds (the
     * 4 × 8 @ 8 × 8 of a generated 10,000-node program), in plain loops: the same fused multiply-adds
     * in the same order as {@link #kernelD} (each k block of {@link #KC} summed from zero along k,
     * then added to C), so every element is the same bit for bit. On a cold JVM the Vector API runs
     * as objects until C2 has compiled the kernel; a program of 2,000 small products spent a fifth
     * of its run there.
     */
    static void small(double[] a, int ao, int ars, int acs, double[] b, int bo, int brs, int bcs,
                      double[] c, int co, int i0, int i1, int n, int k) {
        for (int i = i0; i < i1; i++) {
            int arow = ao + i * ars;
            int crow = co + i * n;
            for (int j = 0; j < n; j++) {
                int bcol = bo + j * bcs;
                double sum = 0.0;
                for (int pc = 0; pc < k; pc += KC) {
                    int end = Math.min(k, pc + KC);
                    double acc = 0.0;
                    for (int p = pc; p < end; p++) {
                        acc = Math.fma(b[bcol + p * brs], a[arow + p * acs], acc);
                    }
                    sum += acc;
                }
                c[crow + j] = sum;
            }
        }
    }

    /** {@link #dgemm} on the Vector API's kernel, whatever the size. */
    static void vector(double[] a, int ao, int ars, int acs, double[] b, int bo, int brs, int bcs,
                       double[] c, int co, int i0, int i1, int n, int k, boolean parallel) {
        int m = i1 - i0;
        for (int i = i0; i < i1; i++) {
            java.util.Arrays.fill(c, co + i * n, co + i * n + n, 0.0);
        }
        if (k == 0) {
            return;
        }
        int kcMax = Math.min(KC, k);
        int ncMax = roundUp(Math.min(NC, n), DNR);
        double[] bp = scratch(0, kcMax * ncMax);
        int blocks = (m + MC - 1) / MC;
        for (int jc = 0; jc < n; jc += NC) {
            int nc = Math.min(NC, n - jc);
            for (int pc = 0; pc < k; pc += KC) {
                int kc = Math.min(KC, k - pc);
                packB(b, bo + pc * brs + jc * bcs, brs, bcs, kc, nc, bp);
                int jc0 = jc;
                int pc0 = pc;
                java.util.function.IntConsumer block = blk -> {
                    int ic = blk * MC;
                    int mc = Math.min(MC, m - ic);
                    double[] ap = scratch(1, roundUp(MC, MR) * KC);
                    double[] edge = scratch(2, MR * DNR);
                    packA(a, ao + (i0 + ic) * ars + pc0 * acs, ars, acs, mc, kc, ap);
                    for (int jr = 0; jr < nc; jr += DNR) {
                        int nr = Math.min(DNR, nc - jr);
                        for (int ir = 0; ir < mc; ir += MR) {
                            int mr = Math.min(MR, mc - ir);
                            int cOff = co + (i0 + ic + ir) * n + jc0 + jr;
                            if (mr == MR && nr == DNR) {
                                kernelD(kc, ap, ir * kc, bp, jr * kc, c, cOff, n);
                            } else {
                                java.util.Arrays.fill(edge, 0, MR * DNR, 0.0);
                                kernelD(kc, ap, ir * kc, bp, jr * kc, edge, 0, DNR);
                                for (int i = 0; i < mr; i++) {
                                    for (int j = 0; j < nr; j++) {
                                        c[cOff + i * n + j] += edge[i * DNR + j];
                                    }
                                }
                            }
                        }
                    }
                };
                if (parallel && blocks > 1) {
                    CpuThreads.parallelFor(blocks, block);
                } else {
                    for (int blk = 0; blk < blocks; blk++) {
                        block.accept(blk);
                    }
                }
            }
        }
    }

    private static int roundUp(int x, int r) {
        return (x + r - 1) / r * r;
    }

    /** B[kc, nc] into slivers of DNR columns: sliver s holds rows 0..kc, each DNR wide (zero padded). */
    private static void packB(double[] b, int off, int rs, int cs, int kc, int nc, double[] bp) {
        for (int jr = 0; jr < nc; jr += DNR) {
            int nr = Math.min(DNR, nc - jr);
            int base = jr * kc;
            for (int p = 0; p < kc; p++) {
                int src = off + p * rs + jr * cs;
                int dst = base + p * DNR;
                if (cs == 1) {
                    System.arraycopy(b, src, bp, dst, nr);
                } else {
                    for (int j = 0; j < nr; j++) {
                        bp[dst + j] = b[src + j * cs];
                    }
                }
                for (int j = nr; j < DNR; j++) {
                    bp[dst + j] = 0.0;
                }
            }
        }
    }

    /** A[mc, kc] into slivers of MR rows: sliver s holds columns 0..kc, each MR tall (zero padded). */
    private static void packA(double[] a, int off, int rs, int cs, int mc, int kc, double[] ap) {
        for (int ir = 0; ir < mc; ir += MR) {
            int mr = Math.min(MR, mc - ir);
            int base = ir * kc;
            if (rs == 1 && cs != 1) {
                // A is a transposed view: walk its rows of the original, which are contiguous.
                for (int p = 0; p < kc; p++) {
                    int src = off + ir + p * cs;
                    int dst = base + p * MR;
                    for (int i = 0; i < mr; i++) {
                        ap[dst + i] = a[src + i];
                    }
                    for (int i = mr; i < MR; i++) {
                        ap[dst + i] = 0.0;
                    }
                }
                continue;
            }
            for (int i = 0; i < MR; i++) {
                if (i < mr) {
                    int src = off + (ir + i) * rs;
                    for (int p = 0; p < kc; p++) {
                        ap[base + p * MR + i] = a[src + p * cs];
                    }
                } else {
                    for (int p = 0; p < kc; p++) {
                        ap[base + p * MR + i] = 0.0;
                    }
                }
            }
        }
    }

    /** C[0:MR, 0:DNR] += Ap · Bp over kc (generated: MR=8 rows, 2 vectors); see Note [Inlined write-back]. */
    // BEGIN GENERATED kernelD (MicroKernels, engine tests: edit it, not this method)
    private static void kernelD(int kc, double[] ap, int ao, double[] bp, int bo, double[] c, int co, int ldc) {
        DoubleVector c0_0 = DoubleVector.zero(DS); DoubleVector c0_1 = DoubleVector.zero(DS);
        DoubleVector c1_0 = DoubleVector.zero(DS); DoubleVector c1_1 = DoubleVector.zero(DS);
        DoubleVector c2_0 = DoubleVector.zero(DS); DoubleVector c2_1 = DoubleVector.zero(DS);
        DoubleVector c3_0 = DoubleVector.zero(DS); DoubleVector c3_1 = DoubleVector.zero(DS);
        DoubleVector c4_0 = DoubleVector.zero(DS); DoubleVector c4_1 = DoubleVector.zero(DS);
        DoubleVector c5_0 = DoubleVector.zero(DS); DoubleVector c5_1 = DoubleVector.zero(DS);
        DoubleVector c6_0 = DoubleVector.zero(DS); DoubleVector c6_1 = DoubleVector.zero(DS);
        DoubleVector c7_0 = DoubleVector.zero(DS); DoubleVector c7_1 = DoubleVector.zero(DS);
        int w = DS.length();
        for (int p = 0; p < kc; p++) {
            DoubleVector b0 = DoubleVector.fromArray(DS, bp, bo + p * DNR);
            DoubleVector b1 = DoubleVector.fromArray(DS, bp, bo + p * DNR + 1 * w);
            int a = ao + p * MR;
            DoubleVector x;
            x = DoubleVector.broadcast(DS, ap[a + 0]);
            c0_0 = b0.fma(x, c0_0);
            c0_1 = b1.fma(x, c0_1);
            x = DoubleVector.broadcast(DS, ap[a + 1]);
            c1_0 = b0.fma(x, c1_0);
            c1_1 = b1.fma(x, c1_1);
            x = DoubleVector.broadcast(DS, ap[a + 2]);
            c2_0 = b0.fma(x, c2_0);
            c2_1 = b1.fma(x, c2_1);
            x = DoubleVector.broadcast(DS, ap[a + 3]);
            c3_0 = b0.fma(x, c3_0);
            c3_1 = b1.fma(x, c3_1);
            x = DoubleVector.broadcast(DS, ap[a + 4]);
            c4_0 = b0.fma(x, c4_0);
            c4_1 = b1.fma(x, c4_1);
            x = DoubleVector.broadcast(DS, ap[a + 5]);
            c5_0 = b0.fma(x, c5_0);
            c5_1 = b1.fma(x, c5_1);
            x = DoubleVector.broadcast(DS, ap[a + 6]);
            c6_0 = b0.fma(x, c6_0);
            c6_1 = b1.fma(x, c6_1);
            x = DoubleVector.broadcast(DS, ap[a + 7]);
            c7_0 = b0.fma(x, c7_0);
            c7_1 = b1.fma(x, c7_1);
        }
        c0_0.add(DoubleVector.fromArray(DS, c, co)).intoArray(c, co);
        c0_1.add(DoubleVector.fromArray(DS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c1_0.add(DoubleVector.fromArray(DS, c, co)).intoArray(c, co);
        c1_1.add(DoubleVector.fromArray(DS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c2_0.add(DoubleVector.fromArray(DS, c, co)).intoArray(c, co);
        c2_1.add(DoubleVector.fromArray(DS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c3_0.add(DoubleVector.fromArray(DS, c, co)).intoArray(c, co);
        c3_1.add(DoubleVector.fromArray(DS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c4_0.add(DoubleVector.fromArray(DS, c, co)).intoArray(c, co);
        c4_1.add(DoubleVector.fromArray(DS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c5_0.add(DoubleVector.fromArray(DS, c, co)).intoArray(c, co);
        c5_1.add(DoubleVector.fromArray(DS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c6_0.add(DoubleVector.fromArray(DS, c, co)).intoArray(c, co);
        c6_1.add(DoubleVector.fromArray(DS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c7_0.add(DoubleVector.fromArray(DS, c, co)).intoArray(c, co);
        c7_1.add(DoubleVector.fromArray(DS, c, co + 1 * w)).intoArray(c, co + 1 * w);
    }
    // END GENERATED kernelD
}
