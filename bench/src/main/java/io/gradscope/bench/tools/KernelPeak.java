package io.gradscope.bench.tools;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * How close the CPU GEMM's micro-kernel comes to the core's peak (scripts/bench/kernel_peak.sh runs it): the 12 × 32
 * kernel on one A sliver and one B sliver that stay in L1, against a loop of the same 24
 * independent fused multiply-adds with nothing to load, taken in turns. Then the same FMA loop on
 * two threads at once, to show what a second core adds. Needs 16-lane vectors (AVX-512).
 */
public final class KernelPeak {
    private KernelPeak() {
    }

    /**
     * The engine's kernel (VectorGemmKernels.kernel12, package-private), reached through a method
     * handle: a constant one, which the JIT inlines as it would a direct call.
     */
    private static final MethodHandle KERNEL12 = kernel12();

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int FNR = 2 * FS.length();
    private static final int KC = 256;

    private static MethodHandle kernel12() {
        try {
            Class<?> kernels = Class.forName("io.gradscope.engine.device.cpu.VectorGemmKernels");
            return MethodHandles.privateLookupIn(kernels, MethodHandles.lookup()).findStatic(kernels, "kernel12",
                    MethodType.methodType(void.class, int.class, float[].class, int.class, float[].class, int.class, float[].class,
                            int.class, int.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the engine's VectorGemmKernels.kernel12 is not there: " + e, e);
        }
    }

    /** GFLOP/s of {@code calls} kernel calls over kc = 256 on slivers in L1. */
    static double kernel(int calls) throws Throwable {
        float[] ap = new float[12 * KC];
        float[] bp = new float[FNR * KC];
        float[] c = new float[12 * FNR];
        Arrays.fill(ap, 1e-3f);
        Arrays.fill(bp, 1e-3f);
        long t0 = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            KERNEL12.invokeExact(KC, ap, 0, bp, 0, c, 0, FNR);
        }
        return 2.0 * 12 * FNR * KC * calls / (System.nanoTime() - t0);
    }

    /** GFLOP/s of the same count of FMAs into 24 accumulators, operands already in registers. */
    static double fmaOnly(int calls) {
        float[] v = new float[FS.length()];
        Arrays.fill(v, 1e-3f);
        FloatVector x = FloatVector.fromArray(FS, v, 0);
        FloatVector y = x.mul(0.5f);
        FloatVector[] keep = new FloatVector[1];
        long t0 = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            FloatVector s0 = x, s1 = x, s2 = x, s3 = x, s4 = x, s5 = x, s6 = x, s7 = x, s8 = x, s9 = x, s10 = x, s11 = x;
            FloatVector t0v = y, t1 = y, t2 = y, t3 = y, t4 = y, t5 = y, t6 = y, t7 = y, t8 = y, t9 = y, t10 = y, t11 = y;
            for (int p = 0; p < KC; p++) {
                s0 = x.fma(y, s0); t0v = y.fma(x, t0v);
                s1 = x.fma(y, s1); t1 = y.fma(x, t1);
                s2 = x.fma(y, s2); t2 = y.fma(x, t2);
                s3 = x.fma(y, s3); t3 = y.fma(x, t3);
                s4 = x.fma(y, s4); t4 = y.fma(x, t4);
                s5 = x.fma(y, s5); t5 = y.fma(x, t5);
                s6 = x.fma(y, s6); t6 = y.fma(x, t6);
                s7 = x.fma(y, s7); t7 = y.fma(x, t7);
                s8 = x.fma(y, s8); t8 = y.fma(x, t8);
                s9 = x.fma(y, s9); t9 = y.fma(x, t9);
                s10 = x.fma(y, s10); t10 = y.fma(x, t10);
                s11 = x.fma(y, s11); t11 = y.fma(x, t11);
            }
            keep[0] = s0.add(s1).add(s2).add(s3).add(s4).add(s5).add(s6).add(s7).add(s8).add(s9).add(s10).add(s11)
                    .add(t0v).add(t1).add(t2).add(t3).add(t4).add(t5).add(t6).add(t7).add(t8).add(t9).add(t10).add(t11);
        }
        double g = 2.0 * 24 * FS.length() * KC * calls / (System.nanoTime() - t0);
        return keep[0].lane(0) == -1 ? 0 : g;
    }

    public static void main(String[] args) throws Throwable {
        if (FS.length() != 16) {
            System.out.println("needs 16-lane vectors (AVX-512); this machine has " + FS.length());
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 101;
        double[][] g = new double[2][rounds];
        double[] ratio = new double[rounds];
        for (int r = 0; r < rounds + 30; r++) {
            double k = kernel(2000);
            double f = fmaOnly(2000);
            if (r >= 30) {
                g[0][r - 30] = k;
                g[1][r - 30] = f;
                ratio[r - 30] = k / f;
            }
        }
        Arrays.sort(ratio);
        Arrays.sort(g[0]);
        Arrays.sort(g[1]);
        int h = rounds / 2;
        System.out.printf("one core: kernel in L1 %.1f GFLOP/s, FMA only %.1f GFLOP/s (medians); kernel/FMA-only %.3f"
                + " (median of %d paired rounds, quartiles %.3f-%.3f)%n", g[0][h], g[1][h], ratio[h], rounds,
                ratio[rounds / 4], ratio[3 * rounds / 4]);
        double[] two = new double[2];
        double[] sums = new double[9];
        double[] ones = new double[9];
        for (int r = 0; r < 9; r++) {
            ones[r] = fmaOnly(20000);
            Thread[] t = new Thread[2];
            for (int i = 0; i < 2; i++) {
                int id = i;
                t[i] = new Thread(() -> two[id] = fmaOnly(20000));
                t[i].start();
            }
            for (Thread x : t) {
                x.join();
            }
            sums[r] = two[0] + two[1];
        }
        Arrays.sort(sums);
        Arrays.sort(ones);
        System.out.printf("FMA only: one thread %.1f GFLOP/s, two threads at once %.1f GFLOP/s together (medians of 9)%n",
                ones[4], sums[4]);
    }
}
