package io.gradscope.app.service;

/**
 * Where the time of one run went, as {@code bench-ui --open} and the status line report it: the
 * worker's parts (parse, plan, run, trace graph, layout; nanoseconds) and the {@link System#nanoTime}
 * instants the worker started and finished, so the waits before and after it can be told apart
 * from the work.
 */
public record OpenTimes(long startedAt, long parseNs, long planNs, long runNs, long traceNs, long layoutNs, long finishedAt) {
    /** The parse, plan, run and trace graph together (the status line's "run"). */
    public long runMillis() {
        return (parseNs + planNs + runNs + traceNs) / 1_000_000;
    }

    public long layoutMillis() {
        return layoutNs / 1_000_000;
    }

    /** Collects the parts as the worker goes: {@link #mark} after each, in order. */
    static final class Clock {
        private final long start = System.nanoTime();
        private long last = start;
        private final long[] parts = new long[5];
        private int next;

        /** The part since the last mark (or the start) is over. */
        void mark() {
            long now = System.nanoTime();
            parts[next++] = now - last;
            last = now;
        }

        OpenTimes done() {
            return new OpenTimes(start, parts[0], parts[1], parts[2], parts[3], parts[4], System.nanoTime());
        }
    }
}
