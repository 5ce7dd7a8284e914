package io.gradscope.engine.memory;

import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns backend allocations into {@link TraceEvent.Alloc}/{@link TraceEvent.Free} events with a
 * category.
 *
 * <p>Note [Allocation scopes]: while an op runs, a {@link Scope} holds back the events of the
 * storages it allocates. When the op ends, the storages it keeps (its output, what it saved for
 * the backward pass) are announced with the scope's category (activation in the forward pass,
 * gradient in the backward pass); the rest are announced as temporaries and released at once. A
 * nested scope hands the storages it keeps to its parent, which decides their category.
 */
public final class Allocations {
    private static final ThreadLocal<Deque<Scope>> SCOPES = ThreadLocal.withInitial(ArrayDeque::new);
    private static final ThreadLocal<MemoryCategory> DEFAULT =
            ThreadLocal.withInitial(() -> MemoryCategory.ACTIVATION);

    private Allocations() {
    }

    /** The category a new storage gets if nothing else decides. */
    public static MemoryCategory currentCategory() {
        Scope top = SCOPES.get().peek();
        return top != null ? top.keepCategory : DEFAULT.get();
    }

    /** Runs {@code body} with new storages (outside any op) in {@code category}, e.g. parameters. */
    public static <T> T withCategory(MemoryCategory category, java.util.function.Supplier<T> body) {
        MemoryCategory before = DEFAULT.get();
        DEFAULT.set(category);
        try {
            return body.get();
        } finally {
            DEFAULT.set(before);
        }
    }

    /** Called by a backend for every new storage. */
    public static void allocated(Storage s) {
        Scope top = SCOPES.get().peek();
        if (top != null) {
            top.pending.put(s, Boolean.FALSE);
        } else {
            s.setCategory(DEFAULT.get());
            announce(s);
        }
    }

    /** Called by a backend when a storage is released. */
    public static void released(Storage s) {
        for (Scope scope : SCOPES.get()) {
            if (scope.pending.containsKey(s)) {
                scope.pending.put(s, Boolean.TRUE);
                return;
            }
        }
        Recorder.emit(new TraceEvent.Free(s.id(), s.bytes(), s.category(), s.device().toString()));
    }

    private static void announce(Storage s) {
        Recorder.emit(new TraceEvent.Alloc(s.id(), s.bytes(), s.category(), s.device().toString()));
    }

    /** Opens a scope whose kept storages get {@code keepCategory}. */
    public static Scope open(MemoryCategory keepCategory) {
        Scope s = new Scope(keepCategory);
        SCOPES.get().push(s);
        return s;
    }

    /** Allocations of one op; see Note [Allocation scopes]. */
    public static final class Scope {
        private final MemoryCategory keepCategory;
        private final Map<Storage, Boolean> pending = new LinkedHashMap<>();

        private Scope(MemoryCategory keepCategory) {
            this.keepCategory = keepCategory;
        }

        /** Ends the scope keeping the storages behind {@code keep} (null entries are ignored). */
        public void close(Collection<Tensor> keep) {
            Deque<Scope> stack = SCOPES.get();
            stack.remove(this);
            Map<Storage, Boolean> kept = new IdentityHashMap<>();
            for (Tensor t : keep) {
                if (t != null) {
                    kept.put(t.storage(), Boolean.TRUE);
                }
            }
            Scope parent = stack.peek();
            List<Storage> temporaries = new ArrayList<>();
            for (Map.Entry<Storage, Boolean> e : pending.entrySet()) {
                Storage s = e.getKey();
                boolean releasedAlready = e.getValue();
                if (kept.containsKey(s) && !releasedAlready && parent != null) {
                    parent.pending.put(s, Boolean.FALSE);
                    continue;
                }
                s.setCategory(kept.containsKey(s) ? keepCategory : MemoryCategory.TEMPORARY);
                announce(s);
                if (releasedAlready) {
                    released(s);
                } else if (!kept.containsKey(s)) {
                    temporaries.add(s);
                }
            }
            for (Storage s : temporaries) {
                s.release();
            }
            pending.clear();
        }
    }
}
