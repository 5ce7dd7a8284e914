package io.gradscope.bench.tools;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.Random;

/**
 * Two versions of the CPU GEMM in one JVM, taken in turns (scripts/bench/gemm_ab.sh REV runs it: the
 * old is a revision's VectorGemm compiled as GemmOld beside the engine's classes, the new the
 * engine's own VectorGemm): on a shared machine whose
 * speed moves by 30% from one minute to the next, only such paired runs tell a 5% change from noise.
 * Prints, per shape, each version's median GFLOP/s and the median of the paired new/old ratios.
 * Arguments: {@code s|p} (one thread or the pool), rounds, and optionally one square size.
 */
public final class GemmAB {
    private GemmAB() {
    }

    /** The package-private {@code sgemm} of the engine's GEMM class {@code name}, through a method handle. */
    static MethodHandle sgemm(String name) {
        try {
            Class<?> gemm = Class.forName("io.gradscope.engine.device.cpu." + name);
            return MethodHandles.privateLookupIn(gemm, MethodHandles.lookup()).findStatic(gemm, "sgemm",
                    MethodType.methodType(void.class, float[].class, int.class, int.class, int.class, float[].class, int.class,
                            int.class, int.class, float[].class, int.class, int.class, int.class, int.class, int.class, boolean.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no " + name + ".sgemm (run this with scripts/bench/gemm_ab.sh REV): " + e, e);
        }
    }

    public static void main(String[] args) throws Throwable {
        MethodHandle[] versions = {sgemm("GemmOld"), sgemm("VectorGemm")};
        boolean parallel = args.length > 0 && args[0].equals("p");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        // m, n, k, layout: 0 both row-major, 1 A a transposed view (xᵀ), 2 B a transposed view (Wᵀ).
        int[][] shapes = args.length > 2
                ? new int[][] {{Integer.parseInt(args[2]), Integer.parseInt(args[2]), Integer.parseInt(args[2]), 0}}
                : new int[][] {{128, 512, 784, 0}, {128, 512, 512, 0}, {784, 512, 128, 1}, {512, 512, 128, 1},
                    {128, 784, 512, 2}, {1024, 1024, 1024, 0}};
        for (int[] s : shapes) {
            int m = s[0];
            int n = s[1];
            int k = s[2];
            Random r = new Random(m + 7L * n + 31L * k);
            float[] a = new float[m * k];
            float[] b = new float[k * n];
            for (int i = 0; i < a.length; i++) {
                a[i] = r.nextFloat();
            }
            for (int i = 0; i < b.length; i++) {
                b[i] = r.nextFloat();
            }
            float[][] c = {new float[m * n], new float[m * n]};
            int ars = s[3] == 1 ? 1 : k;
            int acs = s[3] == 1 ? m : 1;
            int brs = s[3] == 2 ? 1 : n;
            int bcs = s[3] == 2 ? k : 1;
            double flops = 2.0 * m * n * k;
            int reps = (int) Math.max(2, 1.5e9 / flops);
            double[][] g = new double[2][rounds];
            for (int round = 0; round < rounds + 8; round++) {
                for (int turn = 0; turn < 2; turn++) {
                    int v = (round + turn) % 2;
                    long t0 = System.nanoTime();
                    for (int q = 0; q < reps; q++) {
                        versions[v].invokeExact(a, 0, ars, acs, b, 0, brs, bcs, c[v], 0, 0, m, n, k, parallel);
                    }
                    if (round >= 8) {
                        g[v][round - 8] = flops * reps / (System.nanoTime() - t0);
                    }
                }
            }
            double diff = 0;
            for (int i = 0; i < c[0].length; i++) {
                diff = Math.max(diff, Math.abs(c[0][i] - c[1][i]));
            }
            double[] ratio = new double[rounds];
            for (int i = 0; i < rounds; i++) {
                ratio[i] = g[1][i] / g[0][i];
            }
            Arrays.sort(ratio);
            Arrays.sort(g[0]);
            Arrays.sort(g[1]);
            System.out.printf("%-22s old %6.1f  new %6.1f GFLOP/s  new/old %.3f  (largest difference %.2g)%n",
                    Arrays.toString(s), g[0][rounds / 2], g[1][rounds / 2], ratio[rounds / 2], diff);
        }
    }
}
