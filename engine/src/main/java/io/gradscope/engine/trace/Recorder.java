package io.gradscope.engine.trace;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Collects the events the engine publishes on the current thread while it is open.
 *
 * <pre>{@code
 * try (Recorder rec = Recorder.start()) {
 *     Tensor loss = Ops.sum(Ops.relu(Ops.matmul(x, w)));
 *     Backward.run(loss);
 *     Trace trace = rec.trace();
 * }
 * }</pre>
 */
public final class Recorder implements AutoCloseable {
    private static final ThreadLocal<Deque<Recorder>> ACTIVE = ThreadLocal.withInitial(ArrayDeque::new);

    private final List<TraceEvent> events = new ArrayList<>();
    private boolean closed;

    private Recorder() {
    }

    /** Starts recording on this thread; recorders nest, every open one receives each event. */
    public static Recorder start() {
        Recorder r = new Recorder();
        ACTIVE.get().push(r);
        return r;
    }

    /** True when some recorder is listening on this thread. */
    public static boolean active() {
        return !ACTIVE.get().isEmpty();
    }

    /** Publishes an event to every open recorder of this thread. */
    public static void emit(TraceEvent event) {
        for (Recorder r : ACTIVE.get()) {
            r.events.add(event);
        }
    }

    /** The events so far, as an immutable trace. */
    public Trace trace() {
        return new Trace(List.copyOf(events));
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            ACTIVE.get().remove(this);
        }
    }
}
