package io.gradscope.app.cli;

import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gradscope bench}: timed engine workloads, medians after warm-up. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measures engine speed: matmul GFLOP/s (median of several runs after warm-up).")
public final class BenchCommand implements Callable<Integer> {
    @Option(names = "--size", description = "Square matmul size (default: ${DEFAULT-VALUE}).", defaultValue = "1024")
    int size;

    @Option(names = "--runs", description = "Timed runs per workload (default: ${DEFAULT-VALUE}).", defaultValue = "7")
    int runs;

    @Override
    public Integer call() {
        for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor a = random(dt, size, 1);
            Tensor b = random(dt, size, 2);
            for (int i = 0; i < 3; i++) {
                Ops.matmul(a, b);
            }
            double[] gflops = new double[runs];
            for (int i = 0; i < runs; i++) {
                long t0 = System.nanoTime();
                Ops.matmul(a, b);
                double s = (System.nanoTime() - t0) / 1e9;
                gflops[i] = 2.0 * size * size * size / s / 1e9;
            }
            Arrays.sort(gflops);
            System.out.printf("%s gemm n=%d: median %.1f GFLOP/s (min %.1f, max %.1f, %d runs)%n",
                    dt == DType.FLOAT32 ? "sgemm" : "dgemm", size, gflops[runs / 2], gflops[0], gflops[runs - 1], runs);
        }
        return 0;
    }

    private static Tensor random(DType dt, int n, long seed) {
        Random r = new Random(seed);
        double[] d = new double[n * n];
        for (int i = 0; i < d.length; i++) {
            d[i] = r.nextGaussian();
        }
        return Tensor.fromDoubles(dt, d, n, n);
    }
}
