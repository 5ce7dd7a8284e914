package io.gradscope.engine.trace;

import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects the events the engine publishes on the current thread while it is open, and keeps the
 * thread's source context (position, groups, checkpoint segment) that events are stamped with.
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
    private static final ThreadLocal<Context> CONTEXT = ThreadLocal.withInitial(Context::new);
    /**
     * Recorders started and not yet closed, on all threads: while there are none, {@link #active()}
     * answers without looking up this thread's (every op asks, and a lookup costs more than the op's
     * arithmetic on a small tensor).
     */
    private static final java.util.concurrent.atomic.AtomicInteger OPEN = new java.util.concurrent.atomic.AtomicInteger();

    private final List<TraceEvent> events = new ArrayList<>();
    private final boolean keepValues;
    /**
     * For a recorder that lets go of released values: the indices of the events that carry a
     * tensor of each storage (by storage id), so that a storage's release replaces them at once
     * (else the trace would keep the released block reachable and the heap would not shrink).
     */
    private final Map<Long, int[]> carriers;
    /** For a tap: told of each event, with its tensors, as it is published; nothing is kept. */
    private final java.util.function.Consumer<TraceEvent> tap;
    private boolean closed;

    private Recorder(boolean keepValues, boolean dropReleased) {
        this(keepValues, dropReleased, null);
    }

    private Recorder(boolean keepValues, boolean dropReleased, java.util.function.Consumer<TraceEvent> tap) {
        this.keepValues = keepValues;
        this.carriers = dropReleased ? new java.util.HashMap<>() : null;
        this.tap = tap;
    }

    /** The thread's source context, and the ids of values without a node named while recording. */
    private static final class Context {
        final Deque<String> groups = new ArrayDeque<>();
        final Deque<Integer> segments = new ArrayDeque<>();
        int line;
        int column;
        Source source = Source.NONE;
        final Map<Tensor, Long> ids = new IdentityHashMap<>();

        void changed() {
            source = new Source(line, column, new ArrayList<>(groups), segments.isEmpty() ? -1 : segments.peekLast());
        }
    }

    /** Starts recording on this thread; recorders nest, every open one receives each event. */
    public static Recorder start() {
        return start(true);
    }

    /**
     * Starts recording; without {@code keepValues} the events keep no tensors (values, gradients
     * and contributions are null): a run that releases its storages leaves none for them to show.
     */
    public static Recorder start(boolean keepValues) {
        return start(new Recorder(keepValues, false));
    }

    /**
     * Starts recording events with their tensors, letting go of each tensor when its storage is
     * released: the event then keeps a stand-in of the same shape without data ({@link NotRetained}).
     * For a run that retains only some of its values ({@code alloc.Retention}).
     */
    public static Recorder startDroppingReleased() {
        return start(new Recorder(true, true));
    }

    /**
     * Starts a tap: {@code tap} is told of each event (tensors included) as it is published on this
     * thread, and nothing is kept (the tensors are the run's: read them then, or copy them).
     */
    public static Recorder startTap(java.util.function.Consumer<TraceEvent> tap) {
        return start(new Recorder(false, false, tap));
    }

    private static Recorder start(Recorder r) {
        OPEN.incrementAndGet();
        ACTIVE.get().push(r);
        return r;
    }

    /** Whether this recorder's events keep their tensors. */
    public boolean keepsValues() {
        return keepValues;
    }

    /** Recording held back; closing resumes it. */
    public interface Paused extends AutoCloseable {
        @Override
        void close();
    }

    /** Holds back this thread's recorders until closed (e.g. for the ops inside a JVP, which are not the program's). */
    public static Paused pause() {
        Deque<Recorder> open = ACTIVE.get();
        ACTIVE.set(new ArrayDeque<>());
        return () -> ACTIVE.set(open);
    }

    /** True when some recorder is listening on this thread. */
    public static boolean active() {
        return OPEN.get() > 0 && !ACTIVE.get().isEmpty();
    }

    /** Publishes an event to every open recorder of this thread. */
    public static void emit(TraceEvent event) {
        TraceEvent bare = null;
        for (Recorder r : ACTIVE.get()) {
            if (r.tap != null) {
                r.tap.accept(event);
            } else if (r.carriers != null) {
                r.addDroppingReleased(event);
            } else if (r.keepValues) {
                r.events.add(event);
            } else {
                if (bare == null) {
                    bare = Stripped.of(event);
                }
                r.events.add(bare);
            }
        }
    }

    private void addDroppingReleased(TraceEvent event) {
        if (event instanceof TraceEvent.Free f) {
            // A Free is also sent when a storage only changes category (held for inspection): then nothing is released.
            int[] at = carriers.get(f.storage());
            boolean gone = false;
            for (int i = 1; at != null && i <= at[0]; i++) {
                if (NotRetained.hasReleased(events.get(at[i]))) {
                    events.set(at[i], NotRetained.replaceReleased(events.get(at[i])));
                    gone = true;
                }
            }
            if (gone) {
                carriers.remove(f.storage());
            }
        }
        int index = events.size();
        events.add(event);
        NotRetained.storagesOf(event, id -> {
            int[] at = carriers.get(id);
            if (at == null) {
                at = new int[3];
            } else if (at[0] + 1 == at.length) {
                at = java.util.Arrays.copyOf(at, at.length * 2);
            }
            at[++at[0]] = index;
            carriers.put(id, at);
        });
    }

    /** How many events this recorder has received so far (the index the next one will have). */
    public int size() {
        return events.size();
    }

    /** The events so far, as an immutable trace. */
    public Trace trace() {
        if (carriers != null) {
            // A storage released without a Free of its own (inside an op's scope) is let go here.
            for (int i = 0; i < events.size(); i++) {
                if (NotRetained.hasReleased(events.get(i))) {
                    events.set(i, NotRetained.replaceReleased(events.get(i)));
                }
            }
        }
        return new Trace(List.copyOf(events));
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            OPEN.decrementAndGet();
            ACTIVE.get().remove(this);
            if (ACTIVE.get().isEmpty()) {
                CONTEXT.get().ids.clear();
            }
        }
    }

    // ---- value ids ---------------------------------------------------------------------------

    /**
     * The id the trace knows {@code t} by: its autograd node's id, else the id {@link #name} gave
     * it while recording; -1 for a value never named (a literal constant).
     */
    public static long idOf(Tensor t) {
        long node = t.nodeId();
        if (node >= 0) {
            return node;
        }
        Long id = CONTEXT.get().ids.get(t);
        return id == null ? -1 : id;
    }

    /**
     * The id of {@code t}, giving it one from {@link ValueIds} when it has neither a node nor an
     * id yet; the id lasts until the outermost recorder of this thread closes.
     */
    public static long name(Tensor t) {
        long id = idOf(t);
        if (id < 0) {
            id = ValueIds.next();
            CONTEXT.get().ids.put(t, id);
        }
        return id;
    }

    // ---- source context ----------------------------------------------------------------------

    /** Where the events published now come from. */
    public static Source source() {
        return CONTEXT.get().source;
    }

    /** Sets the program position (1-based line and column; 0, 0 for none) of what runs next. */
    public static void at(int line, int column) {
        Context c = CONTEXT.get();
        if (c.line != line || c.column != column) {
            c.line = line;
            c.column = column;
            c.changed();
        }
    }

    /** Enters a group (groups nest); pair with {@link #exitGroup()}. */
    public static void enterGroup(String name) {
        Context c = CONTEXT.get();
        c.groups.addLast(name);
        c.changed();
    }

    /** Leaves the innermost group. */
    public static void exitGroup() {
        Context c = CONTEXT.get();
        c.groups.removeLast();
        c.changed();
    }

    /** Enters checkpoint segment number {@code segment} (segments nest); pair with {@link #exitSegment()}. */
    public static void enterSegment(int segment) {
        Context c = CONTEXT.get();
        c.segments.addLast(segment);
        c.changed();
    }

    /** Leaves the innermost checkpoint segment. */
    public static void exitSegment() {
        Context c = CONTEXT.get();
        c.segments.removeLast();
        c.changed();
    }
}
