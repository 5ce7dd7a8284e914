package io.gradscope.engine.trace;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The one sequence of value ids: an autograd node takes its id from it when it is made, and the
 * trace names a value that has no node with the next one ({@link Recorder#name}), so one id never
 * means two values. Ids grow with creation, so creation order is a topological order (inputs
 * before outputs).
 *
 * <pre>{@code
 * long id = ValueIds.next();   // 1, 2, 3, ... over the whole process
 * }</pre>
 */
public final class ValueIds {
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private ValueIds() {
    }

    /** The next id (the first is 1); never the same twice. */
    public static long next() {
        return SEQUENCE.incrementAndGet();
    }
}
