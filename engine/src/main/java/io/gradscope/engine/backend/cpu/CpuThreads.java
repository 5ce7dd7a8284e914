package io.gradscope.engine.backend.cpu;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * The one thread pool for CPU kernels (two pools fighting over two cores is slower than one).
 *
 * <p>Note [The caller works too]: {@link #parallelFor} hands indices out from one counter to the
 * calling thread and to up to THREADS − 1 helpers on the pool, so the caller never sits idle
 * waiting for a worker to wake, and a thread that the machine's load slows down simply takes
 * fewer indices. A helper that has not started when the indices run out is dropped, not waited for.
 */
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

    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int DROPPED = 2;

    /** Runs {@code task(i)} for i in [0, n), in parallel when {@code n > 1}; each index exactly once. */
    static void parallelFor(int n, IntConsumer task) {
        if (n <= 1 || THREADS == 1) {
            for (int i = 0; i < n; i++) {
                task.accept(i);
            }
            return;
        }
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable work = () -> {
            try {
                for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                    task.accept(i);
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
                next.set(n);
            }
        };
        int helpers = Math.min(n, THREADS) - 1;
        AtomicInteger[] state = new AtomicInteger[helpers];
        ForkJoinTask<?>[] futures = new ForkJoinTask<?>[helpers];
        for (int h = 0; h < helpers; h++) {
            AtomicInteger st = new AtomicInteger(NEW);
            state[h] = st;
            futures[h] = POOL.submit(() -> {
                if (st.compareAndSet(NEW, RUNNING)) {
                    work.run();
                }
            });
        }
        work.run();
        for (int h = 0; h < helpers; h++) {
            if (!state[h].compareAndSet(NEW, DROPPED)) {
                futures[h].join();
            }
        }
        Throwable t = failure.get();
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        if (t != null) {
            throw new RuntimeException(t);
        }
    }
}
