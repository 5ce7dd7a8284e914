package io.gradscope.engine;

import java.util.function.Supplier;

/**
 * A value per thread, made on the thread's first {@link #get()} and never replaced: a
 * {@link ThreadLocal} that remembers the last thread that asked. The engine's bookkeeping asks for
 * its thread's state several times in every op, nearly always from one thread; a
 * {@code ThreadLocal} lookup (a hash probe and a weak reference's check) cost about as much as the
 * arithmetic of an op on a small tensor, and the remembered answer costs a comparison.
 *
 * <p>The last thread that asked is kept reachable until another one asks, with its value: a
 * value that must go when its thread ends (the CPU allocator's group of small blocks, which gives
 * their bytes back then) stays in a {@code ThreadLocal}.
 */
public final class PerThread<T> {
    private record Last<T>(Thread thread, T value) {
    }

    private final ThreadLocal<T> local;
    private volatile Last<T> last;

    public PerThread(Supplier<? extends T> initial) {
        local = ThreadLocal.withInitial(initial);
    }

    /** This thread's value. */
    public T get() {
        Thread t = Thread.currentThread();
        Last<T> l = last;
        if (l != null && l.thread == t) {
            return l.value;
        }
        T v = local.get();
        last = new Last<>(t, v);
        return v;
    }
}
