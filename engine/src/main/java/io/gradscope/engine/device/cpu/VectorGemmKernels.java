package io.gradscope.engine.device.cpu;

import jdk.incubator.vector.FloatVector;

/**
 * {@link VectorGemm}'s register-blocked micro-kernels, written by MicroKernels (engine tests) and
 * kept apart from the GEMM's blocking and packing: 12 rows for 16-lane vectors, 6 for 8-lane ones,
 * storing or adding to C.
 */
final class VectorGemmKernels {
    private VectorGemmKernels() {
    }

    private static final jdk.incubator.vector.VectorSpecies<Float> FS = VectorGemm.FS;
    private static final int FNR = VectorGemm.FNR;

    /** C[0:12, 0:FNR] = Ap · Bp over kc, for 16-lane vectors (24 accumulators of 32 registers); see Note [Inlined write-back]. */
    // BEGIN GENERATED kernel12 (MicroKernels, engine tests: edit it, not this method)
    static void kernel12(int kc, float[] ap, int ao, float[] bp, int bo, float[] c, int co, int ldc) {
        FloatVector c0_0 = FloatVector.zero(FS); FloatVector c0_1 = FloatVector.zero(FS);
        FloatVector c1_0 = FloatVector.zero(FS); FloatVector c1_1 = FloatVector.zero(FS);
        FloatVector c2_0 = FloatVector.zero(FS); FloatVector c2_1 = FloatVector.zero(FS);
        FloatVector c3_0 = FloatVector.zero(FS); FloatVector c3_1 = FloatVector.zero(FS);
        FloatVector c4_0 = FloatVector.zero(FS); FloatVector c4_1 = FloatVector.zero(FS);
        FloatVector c5_0 = FloatVector.zero(FS); FloatVector c5_1 = FloatVector.zero(FS);
        FloatVector c6_0 = FloatVector.zero(FS); FloatVector c6_1 = FloatVector.zero(FS);
        FloatVector c7_0 = FloatVector.zero(FS); FloatVector c7_1 = FloatVector.zero(FS);
        FloatVector c8_0 = FloatVector.zero(FS); FloatVector c8_1 = FloatVector.zero(FS);
        FloatVector c9_0 = FloatVector.zero(FS); FloatVector c9_1 = FloatVector.zero(FS);
        FloatVector c10_0 = FloatVector.zero(FS); FloatVector c10_1 = FloatVector.zero(FS);
        FloatVector c11_0 = FloatVector.zero(FS); FloatVector c11_1 = FloatVector.zero(FS);
        int w = FS.length();
        for (int p = 0; p < kc; p++) {
            FloatVector b0 = FloatVector.fromArray(FS, bp, bo + p * FNR);
            FloatVector b1 = FloatVector.fromArray(FS, bp, bo + p * FNR + 1 * w);
            int a = ao + p * 12;
            FloatVector x;
            x = FloatVector.broadcast(FS, ap[a + 0]);
            c0_0 = b0.fma(x, c0_0);
            c0_1 = b1.fma(x, c0_1);
            x = FloatVector.broadcast(FS, ap[a + 1]);
            c1_0 = b0.fma(x, c1_0);
            c1_1 = b1.fma(x, c1_1);
            x = FloatVector.broadcast(FS, ap[a + 2]);
            c2_0 = b0.fma(x, c2_0);
            c2_1 = b1.fma(x, c2_1);
            x = FloatVector.broadcast(FS, ap[a + 3]);
            c3_0 = b0.fma(x, c3_0);
            c3_1 = b1.fma(x, c3_1);
            x = FloatVector.broadcast(FS, ap[a + 4]);
            c4_0 = b0.fma(x, c4_0);
            c4_1 = b1.fma(x, c4_1);
            x = FloatVector.broadcast(FS, ap[a + 5]);
            c5_0 = b0.fma(x, c5_0);
            c5_1 = b1.fma(x, c5_1);
            x = FloatVector.broadcast(FS, ap[a + 6]);
            c6_0 = b0.fma(x, c6_0);
            c6_1 = b1.fma(x, c6_1);
            x = FloatVector.broadcast(FS, ap[a + 7]);
            c7_0 = b0.fma(x, c7_0);
            c7_1 = b1.fma(x, c7_1);
            x = FloatVector.broadcast(FS, ap[a + 8]);
            c8_0 = b0.fma(x, c8_0);
            c8_1 = b1.fma(x, c8_1);
            x = FloatVector.broadcast(FS, ap[a + 9]);
            c9_0 = b0.fma(x, c9_0);
            c9_1 = b1.fma(x, c9_1);
            x = FloatVector.broadcast(FS, ap[a + 10]);
            c10_0 = b0.fma(x, c10_0);
            c10_1 = b1.fma(x, c10_1);
            x = FloatVector.broadcast(FS, ap[a + 11]);
            c11_0 = b0.fma(x, c11_0);
            c11_1 = b1.fma(x, c11_1);
        }
        c0_0.intoArray(c, co);
        c0_1.intoArray(c, co + 1 * w);
        co += ldc;
        c1_0.intoArray(c, co);
        c1_1.intoArray(c, co + 1 * w);
        co += ldc;
        c2_0.intoArray(c, co);
        c2_1.intoArray(c, co + 1 * w);
        co += ldc;
        c3_0.intoArray(c, co);
        c3_1.intoArray(c, co + 1 * w);
        co += ldc;
        c4_0.intoArray(c, co);
        c4_1.intoArray(c, co + 1 * w);
        co += ldc;
        c5_0.intoArray(c, co);
        c5_1.intoArray(c, co + 1 * w);
        co += ldc;
        c6_0.intoArray(c, co);
        c6_1.intoArray(c, co + 1 * w);
        co += ldc;
        c7_0.intoArray(c, co);
        c7_1.intoArray(c, co + 1 * w);
        co += ldc;
        c8_0.intoArray(c, co);
        c8_1.intoArray(c, co + 1 * w);
        co += ldc;
        c9_0.intoArray(c, co);
        c9_1.intoArray(c, co + 1 * w);
        co += ldc;
        c10_0.intoArray(c, co);
        c10_1.intoArray(c, co + 1 * w);
        co += ldc;
        c11_0.intoArray(c, co);
        c11_1.intoArray(c, co + 1 * w);
    }
    // END GENERATED kernel12

    /** C[0:12, 0:FNR] += Ap · Bp over kc, for 16-lane vectors (24 accumulators of 32 registers); see Note [Inlined write-back]. */
    // BEGIN GENERATED kernel12Add (MicroKernels, engine tests: edit it, not this method)
    static void kernel12Add(int kc, float[] ap, int ao, float[] bp, int bo, float[] c, int co, int ldc) {
        FloatVector c0_0 = FloatVector.zero(FS); FloatVector c0_1 = FloatVector.zero(FS);
        FloatVector c1_0 = FloatVector.zero(FS); FloatVector c1_1 = FloatVector.zero(FS);
        FloatVector c2_0 = FloatVector.zero(FS); FloatVector c2_1 = FloatVector.zero(FS);
        FloatVector c3_0 = FloatVector.zero(FS); FloatVector c3_1 = FloatVector.zero(FS);
        FloatVector c4_0 = FloatVector.zero(FS); FloatVector c4_1 = FloatVector.zero(FS);
        FloatVector c5_0 = FloatVector.zero(FS); FloatVector c5_1 = FloatVector.zero(FS);
        FloatVector c6_0 = FloatVector.zero(FS); FloatVector c6_1 = FloatVector.zero(FS);
        FloatVector c7_0 = FloatVector.zero(FS); FloatVector c7_1 = FloatVector.zero(FS);
        FloatVector c8_0 = FloatVector.zero(FS); FloatVector c8_1 = FloatVector.zero(FS);
        FloatVector c9_0 = FloatVector.zero(FS); FloatVector c9_1 = FloatVector.zero(FS);
        FloatVector c10_0 = FloatVector.zero(FS); FloatVector c10_1 = FloatVector.zero(FS);
        FloatVector c11_0 = FloatVector.zero(FS); FloatVector c11_1 = FloatVector.zero(FS);
        int w = FS.length();
        for (int p = 0; p < kc; p++) {
            FloatVector b0 = FloatVector.fromArray(FS, bp, bo + p * FNR);
            FloatVector b1 = FloatVector.fromArray(FS, bp, bo + p * FNR + 1 * w);
            int a = ao + p * 12;
            FloatVector x;
            x = FloatVector.broadcast(FS, ap[a + 0]);
            c0_0 = b0.fma(x, c0_0);
            c0_1 = b1.fma(x, c0_1);
            x = FloatVector.broadcast(FS, ap[a + 1]);
            c1_0 = b0.fma(x, c1_0);
            c1_1 = b1.fma(x, c1_1);
            x = FloatVector.broadcast(FS, ap[a + 2]);
            c2_0 = b0.fma(x, c2_0);
            c2_1 = b1.fma(x, c2_1);
            x = FloatVector.broadcast(FS, ap[a + 3]);
            c3_0 = b0.fma(x, c3_0);
            c3_1 = b1.fma(x, c3_1);
            x = FloatVector.broadcast(FS, ap[a + 4]);
            c4_0 = b0.fma(x, c4_0);
            c4_1 = b1.fma(x, c4_1);
            x = FloatVector.broadcast(FS, ap[a + 5]);
            c5_0 = b0.fma(x, c5_0);
            c5_1 = b1.fma(x, c5_1);
            x = FloatVector.broadcast(FS, ap[a + 6]);
            c6_0 = b0.fma(x, c6_0);
            c6_1 = b1.fma(x, c6_1);
            x = FloatVector.broadcast(FS, ap[a + 7]);
            c7_0 = b0.fma(x, c7_0);
            c7_1 = b1.fma(x, c7_1);
            x = FloatVector.broadcast(FS, ap[a + 8]);
            c8_0 = b0.fma(x, c8_0);
            c8_1 = b1.fma(x, c8_1);
            x = FloatVector.broadcast(FS, ap[a + 9]);
            c9_0 = b0.fma(x, c9_0);
            c9_1 = b1.fma(x, c9_1);
            x = FloatVector.broadcast(FS, ap[a + 10]);
            c10_0 = b0.fma(x, c10_0);
            c10_1 = b1.fma(x, c10_1);
            x = FloatVector.broadcast(FS, ap[a + 11]);
            c11_0 = b0.fma(x, c11_0);
            c11_1 = b1.fma(x, c11_1);
        }
        c0_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c0_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c1_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c1_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c2_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c2_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c3_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c3_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c4_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c4_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c5_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c5_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c6_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c6_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c7_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c7_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c8_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c8_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c9_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c9_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c10_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c10_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c11_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c11_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
    }
    // END GENERATED kernel12Add

    /** C[0:6, 0:FNR] = Ap · Bp over kc, for 8-lane vectors (12 accumulators of 16 registers); see Note [Inlined write-back]. */
    // BEGIN GENERATED kernel6 (MicroKernels, engine tests: edit it, not this method)
    static void kernel6(int kc, float[] ap, int ao, float[] bp, int bo, float[] c, int co, int ldc) {
        FloatVector c0_0 = FloatVector.zero(FS); FloatVector c0_1 = FloatVector.zero(FS);
        FloatVector c1_0 = FloatVector.zero(FS); FloatVector c1_1 = FloatVector.zero(FS);
        FloatVector c2_0 = FloatVector.zero(FS); FloatVector c2_1 = FloatVector.zero(FS);
        FloatVector c3_0 = FloatVector.zero(FS); FloatVector c3_1 = FloatVector.zero(FS);
        FloatVector c4_0 = FloatVector.zero(FS); FloatVector c4_1 = FloatVector.zero(FS);
        FloatVector c5_0 = FloatVector.zero(FS); FloatVector c5_1 = FloatVector.zero(FS);
        int w = FS.length();
        for (int p = 0; p < kc; p++) {
            FloatVector b0 = FloatVector.fromArray(FS, bp, bo + p * FNR);
            FloatVector b1 = FloatVector.fromArray(FS, bp, bo + p * FNR + 1 * w);
            int a = ao + p * 6;
            FloatVector x;
            x = FloatVector.broadcast(FS, ap[a + 0]);
            c0_0 = b0.fma(x, c0_0);
            c0_1 = b1.fma(x, c0_1);
            x = FloatVector.broadcast(FS, ap[a + 1]);
            c1_0 = b0.fma(x, c1_0);
            c1_1 = b1.fma(x, c1_1);
            x = FloatVector.broadcast(FS, ap[a + 2]);
            c2_0 = b0.fma(x, c2_0);
            c2_1 = b1.fma(x, c2_1);
            x = FloatVector.broadcast(FS, ap[a + 3]);
            c3_0 = b0.fma(x, c3_0);
            c3_1 = b1.fma(x, c3_1);
            x = FloatVector.broadcast(FS, ap[a + 4]);
            c4_0 = b0.fma(x, c4_0);
            c4_1 = b1.fma(x, c4_1);
            x = FloatVector.broadcast(FS, ap[a + 5]);
            c5_0 = b0.fma(x, c5_0);
            c5_1 = b1.fma(x, c5_1);
        }
        c0_0.intoArray(c, co);
        c0_1.intoArray(c, co + 1 * w);
        co += ldc;
        c1_0.intoArray(c, co);
        c1_1.intoArray(c, co + 1 * w);
        co += ldc;
        c2_0.intoArray(c, co);
        c2_1.intoArray(c, co + 1 * w);
        co += ldc;
        c3_0.intoArray(c, co);
        c3_1.intoArray(c, co + 1 * w);
        co += ldc;
        c4_0.intoArray(c, co);
        c4_1.intoArray(c, co + 1 * w);
        co += ldc;
        c5_0.intoArray(c, co);
        c5_1.intoArray(c, co + 1 * w);
    }
    // END GENERATED kernel6

    /** C[0:6, 0:FNR] += Ap · Bp over kc, for 8-lane vectors (12 accumulators of 16 registers); see Note [Inlined write-back]. */
    // BEGIN GENERATED kernel6Add (MicroKernels, engine tests: edit it, not this method)
    static void kernel6Add(int kc, float[] ap, int ao, float[] bp, int bo, float[] c, int co, int ldc) {
        FloatVector c0_0 = FloatVector.zero(FS); FloatVector c0_1 = FloatVector.zero(FS);
        FloatVector c1_0 = FloatVector.zero(FS); FloatVector c1_1 = FloatVector.zero(FS);
        FloatVector c2_0 = FloatVector.zero(FS); FloatVector c2_1 = FloatVector.zero(FS);
        FloatVector c3_0 = FloatVector.zero(FS); FloatVector c3_1 = FloatVector.zero(FS);
        FloatVector c4_0 = FloatVector.zero(FS); FloatVector c4_1 = FloatVector.zero(FS);
        FloatVector c5_0 = FloatVector.zero(FS); FloatVector c5_1 = FloatVector.zero(FS);
        int w = FS.length();
        for (int p = 0; p < kc; p++) {
            FloatVector b0 = FloatVector.fromArray(FS, bp, bo + p * FNR);
            FloatVector b1 = FloatVector.fromArray(FS, bp, bo + p * FNR + 1 * w);
            int a = ao + p * 6;
            FloatVector x;
            x = FloatVector.broadcast(FS, ap[a + 0]);
            c0_0 = b0.fma(x, c0_0);
            c0_1 = b1.fma(x, c0_1);
            x = FloatVector.broadcast(FS, ap[a + 1]);
            c1_0 = b0.fma(x, c1_0);
            c1_1 = b1.fma(x, c1_1);
            x = FloatVector.broadcast(FS, ap[a + 2]);
            c2_0 = b0.fma(x, c2_0);
            c2_1 = b1.fma(x, c2_1);
            x = FloatVector.broadcast(FS, ap[a + 3]);
            c3_0 = b0.fma(x, c3_0);
            c3_1 = b1.fma(x, c3_1);
            x = FloatVector.broadcast(FS, ap[a + 4]);
            c4_0 = b0.fma(x, c4_0);
            c4_1 = b1.fma(x, c4_1);
            x = FloatVector.broadcast(FS, ap[a + 5]);
            c5_0 = b0.fma(x, c5_0);
            c5_1 = b1.fma(x, c5_1);
        }
        c0_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c0_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c1_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c1_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c2_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c2_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c3_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c3_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c4_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c4_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
        co += ldc;
        c5_0.add(FloatVector.fromArray(FS, c, co)).intoArray(c, co);
        c5_1.add(FloatVector.fromArray(FS, c, co + 1 * w)).intoArray(c, co + 1 * w);
    }
    // END GENERATED kernel6Add
}
