package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;

/**
 * Batched matrix multiply: {@code [B..., M, K] @ [B..., K, N]} into a contiguous output. Operands
 * of any strides are packed into contiguous blocks (so transposed views cost nothing extra), the
 * loops are blocked for the caches, and row blocks run on the shared pool. The float and double
 * kernels are the same code for two primitive types.
 */
final class CpuMatmul {
    private CpuMatmul() {
    }

    /** Whether the Vector API kernels can be used (the module is in the boot layer and vectors are wide). */
    static final boolean VECTOR = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() && VectorGemm.useful();

    static final int KC = 256;
    static final int NC = 1024;
    private static final long PARALLEL_FLOPS = 1L << 16;
    /** The least product (2mnk) of a batch's matrix that goes to the system BLAS on its own call. */
    private static final long NATIVE_EACH_FLOPS = 1L << 14;

    static void run(Tensor a, Tensor b, Tensor out) {
        run(a, b, out, null);
    }

    /**
     * {@link #run} on the GEMM named ({@code "native"}: the system BLAS where it loaded and takes the
     * layout; {@code "java"}), or on the one {@link KernelTuner} picks for the product's size (null).
     */
    static void run(Tensor a, Tensor b, Tensor out, String gemm) {
        int r = out.rank();
        int[] os = out.shape();
        int m = os[r - 2];
        int n = os[r - 1];
        int k = a.shape()[r - 1];
        io.gradscope.engine.device.BatchOffsets offs = io.gradscope.engine.device.BatchOffsets.of(a, b, os);
        final int batch = offs.count();
        if (batch == 0 || m == 0 || n == 0) {
            return;
        }
        int[] as = a.strides();
        int[] bs = b.strides();
        int[] aOff = new int[batch];
        int[] bOff = new int[batch];
        for (int p = 0; p < batch; p++) {
            aOff[p] = (int) offs.a()[p];
            bOff[p] = (int) offs.b()[p];
        }
        int ars = as[r - 2];
        int acs = as[r - 1];
        int brs = bs[r - 2];
        int bcs = bs[r - 1];
        long flops = 2L * batch * m * n * Math.max(k, 1);
        boolean f32 = out.dtype() == DType.FLOAT32;
        boolean par = flops >= PARALLEL_FLOPS;
        long each = 2L * m * n * Math.max(k, 1);
        // Note [Which GEMM]: the system's BLAS or the Vector API's, as measured for products of this size.
        boolean blas = NativeGemm.loaded() && (gemm != null ? gemm.equals("native")
                : KernelTuner.pick(KernelChoice.gemm(f32, each)).equals("native"));
        // One matrix on the system's BLAS.
        if (blas && batch == 1 && NativeGemm.product(a.storage(), aOff[0], ars, acs, b.storage(), bOff[0], brs, bcs,
                out.storage(), out.offset(), m, n, k, par && NativeGemm.splits())) {
            return;
        }
        // A batch of matrices, each big enough to pay for a native call: one BLAS call per matrix,
        // each threaded by the library itself (Note [One pool]); a matrix whose layout BLAS cannot take
        // runs on the Java kernel.
        if (blas && batch > 1 && each >= NATIVE_EACH_FLOPS) {
            boolean whole = each >= PARALLEL_FLOPS;
            // With one thread a BLAS call (Note [One pool]), matrices too small for the pool to split go
            // side by side on it, one call each (attention's heads), instead of one after another on one core.
            boolean spread = NativeGemm.splits() && flops >= PARALLEL_FLOPS && !NativeGemm.splitsEach(m, n, k);
            CpuThreads.parallelFor(spread ? batch : 1, t -> {
                for (int p = spread ? t : 0; p < (spread ? t + 1 : batch); p++) {
                    if (!NativeGemm.product(a.storage(), aOff[p], ars, acs, b.storage(), bOff[p], brs, bcs, out.storage(),
                            out.offset() + p * m * n, m, n, k, whole && !spread && NativeGemm.splits())) {
                        block(f32, a, b, out, aOff[p], ars, acs, bOff[p], brs, bcs, p * m * n, 0, m, n, k);
                    }
                }
            });
            return;
        }
        if (VECTOR && batch == 1) {
            // One matrix: the kernel shares each packed panel of B and splits its row blocks over the pool.
            if (f32) {
                VectorGemm.sgemm(a.storage().floats(), aOff[0], ars, acs, b.storage().floats(), bOff[0], brs, bcs,
                        out.storage().floats(), out.offset(), 0, m, n, k, par);
            } else {
                VectorDgemm.dgemm(a.storage().doubles(), aOff[0], ars, acs, b.storage().doubles(), bOff[0], brs, bcs,
                        out.storage().doubles(), out.offset(), 0, m, n, k, par);
            }
            return;
        }
        int chunks = flops < PARALLEL_FLOPS ? 1 : Math.max(1, Math.min(m, CpuThreads.THREADS * 2));
        int rowsPer = (m + chunks - 1) / chunks;
        int tasks = batch * chunks;
        CpuThreads.parallelFor(flops < PARALLEL_FLOPS ? 1 : tasks, t -> {
            if (flops < PARALLEL_FLOPS) {
                for (int p = 0; p < batch; p++) {
                    block(f32, a, b, out, aOff[p], ars, acs, bOff[p], brs, bcs, p * m * n, 0, m, n, k);
                }
                return;
            }
            int p = t / chunks;
            int c = t % chunks;
            int i0 = c * rowsPer;
            int i1 = Math.min(m, i0 + rowsPer);
            if (i0 < i1) {
                block(f32, a, b, out, aOff[p], ars, acs, bOff[p], brs, bcs, p * m * n, i0, i1, n, k);
            }
        });
    }

    private static void block(boolean f32, Tensor a, Tensor b, Tensor out, int ao, int ars, int acs, int bo,
                              int brs, int bcs, int co, int i0, int i1, int n, int k) {
        if (f32 && VECTOR) {
            VectorGemm.sgemm(a.storage().floats(), ao, ars, acs, b.storage().floats(), bo, brs, bcs,
                    out.storage().floats(), out.offset() + co, i0, i1, n, k, false);
        } else if (VECTOR) {
            VectorDgemm.dgemm(a.storage().doubles(), ao, ars, acs, b.storage().doubles(), bo, brs, bcs,
                    out.storage().doubles(), out.offset() + co, i0, i1, n, k, false);
        } else if (f32) {
            gemmF(a.storage().floats(), ao, ars, acs, b.storage().floats(), bo, brs, bcs,
                    out.storage().floats(), out.offset() + co, i0, i1, n, k);
        } else {
            gemmD(a.storage().doubles(), ao, ars, acs, b.storage().doubles(), bo, brs, bcs,
                    out.storage().doubles(), out.offset() + co, i0, i1, n, k);
        }
    }

    /** C[i0:i1, :] = A[i0:i1, :] B for one matrix; C is row-major with n columns. */
    static void gemmF(float[] A, int ao, int ars, int acs, float[] B, int bo, int brs, int bcs,
                      float[] C, int co, int i0, int i1, int n, int k) {
        for (int i = i0; i < i1; i++) {
            java.util.Arrays.fill(C, co + i * n, co + i * n + n, 0f);
        }
        float[] bp = new float[Math.min(KC, Math.max(k, 1)) * Math.min(NC, n)];
        float[] ap = new float[Math.min(KC, Math.max(k, 1))];
        for (int jc = 0; jc < n; jc += NC) {
            int nc = Math.min(NC, n - jc);
            for (int pc = 0; pc < k; pc += KC) {
                int kc = Math.min(KC, k - pc);
                for (int kk = 0; kk < kc; kk++) {
                    int src = bo + (pc + kk) * brs + jc * bcs;
                    int dst = kk * nc;
                    if (bcs == 1) {
                        System.arraycopy(B, src, bp, dst, nc);
                    } else {
                        for (int j = 0; j < nc; j++) {
                            bp[dst + j] = B[src + j * bcs];
                        }
                    }
                }
                for (int i = i0; i < i1; i++) {
                    int arow = ao + i * ars + pc * acs;
                    for (int kk = 0; kk < kc; kk++) {
                        ap[kk] = A[arow + kk * acs];
                    }
                    int c0 = co + i * n + jc;
                    int kk = 0;
                    for (; kk + 3 < kc; kk += 4) {
                        float x0 = ap[kk], x1 = ap[kk + 1], x2 = ap[kk + 2], x3 = ap[kk + 3];
                        int b0 = kk * nc;
                        for (int j = 0; j < nc; j++) {
                            C[c0 + j] += x0 * bp[b0 + j] + x1 * bp[b0 + nc + j]
                                    + x2 * bp[b0 + 2 * nc + j] + x3 * bp[b0 + 3 * nc + j];
                        }
                    }
                    for (; kk < kc; kk++) {
                        float x = ap[kk];
                        int b0 = kk * nc;
                        for (int j = 0; j < nc; j++) {
                            C[c0 + j] += x * bp[b0 + j];
                        }
                    }
                }
            }
        }
    }

    /** The double twin of {@link #gemmF}. */
    // GENERATED double twin (Twins, engine tests): edit the float method above, not this one
    static void gemmD(double[] A, int ao, int ars, int acs, double[] B, int bo, int brs, int bcs,
                      double[] C, int co, int i0, int i1, int n, int k) {
        for (int i = i0; i < i1; i++) {
            java.util.Arrays.fill(C, co + i * n, co + i * n + n, 0.0);
        }
        double[] bp = new double[Math.min(KC, Math.max(k, 1)) * Math.min(NC, n)];
        double[] ap = new double[Math.min(KC, Math.max(k, 1))];
        for (int jc = 0; jc < n; jc += NC) {
            int nc = Math.min(NC, n - jc);
            for (int pc = 0; pc < k; pc += KC) {
                int kc = Math.min(KC, k - pc);
                for (int kk = 0; kk < kc; kk++) {
                    int src = bo + (pc + kk) * brs + jc * bcs;
                    int dst = kk * nc;
                    if (bcs == 1) {
                        System.arraycopy(B, src, bp, dst, nc);
                    } else {
                        for (int j = 0; j < nc; j++) {
                            bp[dst + j] = B[src + j * bcs];
                        }
                    }
                }
                for (int i = i0; i < i1; i++) {
                    int arow = ao + i * ars + pc * acs;
                    for (int kk = 0; kk < kc; kk++) {
                        ap[kk] = A[arow + kk * acs];
                    }
                    int c0 = co + i * n + jc;
                    int kk = 0;
                    for (; kk + 3 < kc; kk += 4) {
                        double x0 = ap[kk], x1 = ap[kk + 1], x2 = ap[kk + 2], x3 = ap[kk + 3];
                        int b0 = kk * nc;
                        for (int j = 0; j < nc; j++) {
                            C[c0 + j] += x0 * bp[b0 + j] + x1 * bp[b0 + nc + j]
                                    + x2 * bp[b0 + 2 * nc + j] + x3 * bp[b0 + 3 * nc + j];
                        }
                    }
                    for (; kk < kc; kk++) {
                        double x = ap[kk];
                        int b0 = kk * nc;
                        for (int j = 0; j < nc; j++) {
                            C[c0 + j] += x * bp[b0 + j];
                        }
                    }
                }
            }
        }
    }
}
