package io.gradscope.engine.backend.cpu;

import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/** The one thread pool for CPU kernels (two pools fighting over two cores is slower than one). */
final class CpuThreads {
    private CpuThreads() {
    }

    static final int THREADS = Math.max(1, Runtime.getRuntime().availableProcessors());
    private static final ForkJoinPool POOL = new ForkJoinPool(THREADS, pool -> {
        var t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
        t.setDaemon(true);
        t.setName("gradscope-cpu-" + t.getPoolIndex());
        return t;
    }, null, false);

    /** Runs {@code task(i)} for i in [0, n), in parallel when {@code n > 1}. */
    static void parallelFor(int n, java.util.function.IntConsumer task) {
        if (n <= 1 || THREADS == 1) {
            for (int i = 0; i < n; i++) {
                task.accept(i);
            }
            return;
        }
        POOL.submit(() -> IntStream.range(0, n).parallel().forEach(task)).join();
    }
}
