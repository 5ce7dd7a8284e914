package io.gradscope.engine.device.cpu;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * The one set of helper threads for CPU kernels (two pools fighting over two cores is slower than one).
 *
 * <p>Note [The caller works too]: {@link #parallelFor} hands indices out from one counter to the
 * calling thread and to up to THREADS − 1 helpers, so the caller never sits idle waiting for a
 * helper to wake, and a thread that the machine's load slows down simply takes fewer indices. An
 * offer that no helper has taken when the indices run out is withdrawn, never waited for; only
 * helpers that took the job are waited for (a helper counts itself in before taking its first
 * index, so the caller, which stops only once every index is taken, always sees it).
 *
 * <p>Note [Warm helpers]: a helper that finishes spins for {@link #SPIN_NANOS} before it parks, as
 * OpenMP's and OpenBLAS's threads do (theirs for far longer). The kernels of one training step
 * follow each other within microseconds, and waking a parked thread costs tens of microseconds,
 * a third of a 128-row matrix product. The spin outlasts the serial work between two parallel
 * kernels of a step (autograd's bookkeeping, a small op): at 0.1 ms the MLP step of `bench` was
 * bimodal, 1.3-4.6 ms with a median of 2.9, and at 0.5 ms a steady 1.8-2.0 ms (Zen 5, 2 cores);
 * far longer would take the core from other processes.
 */
final class CpuThreads {
    private CpuThreads() {
    }

    static final int THREADS = Math.max(1, Runtime.getRuntime().availableProcessors());
    private static final long SPIN_NANOS = 500_000;
    private static final Helper[] HELPERS = new Helper[THREADS - 1];

    static {
        for (int i = 0; i < HELPERS.length; i++) {
            HELPERS[i] = new Helper(i);
        }
    }

    /** One parallelFor: its index counter, the helpers working on it, the first failure. */
    private static final class Job {
        final int n;
        final IntConsumer task;
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger active = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        Job(int n, IntConsumer task) {
            this.n = n;
            this.task = task;
        }

        void work() {
            try {
                for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                    task.accept(i);
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
                next.set(n);
            }
        }
    }

    /** A daemon thread that takes offered jobs; see Note [Warm helpers]. */
    private static final class Helper implements Runnable {
        final AtomicReference<Job> offer = new AtomicReference<>();
        final Thread thread;

        Helper(int index) {
            thread = new Thread(this, "gradscope-cpu-" + index);
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void run() {
            long idleSince = System.nanoTime();
            while (true) {
                Job j = offer.get();
                if (j != null && offer.compareAndSet(j, null)) {
                    j.active.incrementAndGet();
                    j.work();
                    j.active.decrementAndGet();
                    idleSince = System.nanoTime();
                } else if (System.nanoTime() - idleSince < SPIN_NANOS) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.park(this);
                    idleSince = System.nanoTime();
                }
            }
        }

        void give(Job j) {
            offer.set(j);
            LockSupport.unpark(thread);
        }

        /** True when the offer was still untaken (and is now withdrawn). */
        boolean withdraw(Job j) {
            return offer.compareAndSet(j, null);
        }
    }

    /** Runs {@code task(i)} for i in [0, n), in parallel when {@code n > 1}; each index exactly once. */
    static void parallelFor(int n, IntConsumer task) {
        if (n <= 1 || THREADS == 1) {
            for (int i = 0; i < n; i++) {
                task.accept(i);
            }
            return;
        }
        Job job = new Job(n, task);
        int helpers = Math.min(n, THREADS) - 1;
        for (int h = 0; h < helpers; h++) {
            HELPERS[h].give(job);
        }
        job.work();
        for (int h = 0; h < helpers; h++) {
            HELPERS[h].withdraw(job);
        }
        for (int spins = 0; job.active.get() > 0; spins++) {
            if (spins < 2000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        Throwable t = job.failure.get();
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
