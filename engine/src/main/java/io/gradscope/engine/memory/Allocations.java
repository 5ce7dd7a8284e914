package io.gradscope.engine.memory;

import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

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
    /** Per thread: the open scopes (innermost last) and the category outside any op. */
    private static final class State {
        final ArrayList<Scope> scopes = new ArrayList<>();
        MemoryCategory category = MemoryCategory.ACTIVATION;
    }

    private static final ThreadLocal<State> STATE = ThreadLocal.withInitial(State::new);

    private Allocations() {
    }

    private static Scope top(State st) {
        return st.scopes.isEmpty() ? null : st.scopes.get(st.scopes.size() - 1);
    }

    /** The category a new storage gets if nothing else decides. */
    public static MemoryCategory currentCategory() {
        State st = STATE.get();
        Scope top = top(st);
        return top != null ? top.keepCategory : st.category;
    }

    /** Runs {@code body} with new storages (outside any op) in {@code category}, e.g. parameters. */
    public static <T> T withCategory(MemoryCategory category, java.util.function.Supplier<T> body) {
        State st = STATE.get();
        MemoryCategory before = st.category;
        st.category = category;
        try {
            return body.get();
        } finally {
            st.category = before;
        }
    }

    /** Called by a backend for every new storage. */
    public static void allocated(Storage s) {
        State st = STATE.get();
        Scope top = top(st);
        if (top != null) {
            top.pending.add(s);
            top.releasedEarly.add(Boolean.FALSE);
        } else {
            s.setCategory(st.category);
            announce(s);
        }
    }

    /** Called by a backend when a storage is released. */
    public static void released(Storage s) {
        State st = STATE.get();
        for (int i = st.scopes.size() - 1; i >= 0; i--) {
            Scope scope = st.scopes.get(i);
            int at = scope.indexOf(s);
            if (at >= 0) {
                scope.releasedEarly.set(at, Boolean.TRUE);
                return;
            }
        }
        if (Recorder.active()) {
            Recorder.emit(new TraceEvent.Free(s.id(), s.bytes(), s.category(), s.device().toString()));
        }
    }

    private static void announce(Storage s) {
        if (Recorder.active()) {
            Recorder.emit(new TraceEvent.Alloc(s.id(), s.bytes(), s.category(), s.device().toString()));
        }
    }

    /** Opens a scope whose kept storages get {@code keepCategory}. */
    public static Scope open(MemoryCategory keepCategory) {
        Scope s = new Scope(keepCategory);
        STATE.get().scopes.add(s);
        return s;
    }

    /** Allocations of one op; see Note [Allocation scopes]. */
    public static final class Scope {
        private final MemoryCategory keepCategory;
        private final List<Storage> pending = new ArrayList<>(4);
        private final List<Boolean> releasedEarly = new ArrayList<>(4);

        private Scope(MemoryCategory keepCategory) {
            this.keepCategory = keepCategory;
        }

        private int indexOf(Storage s) {
            for (int i = 0; i < pending.size(); i++) {
                if (pending.get(i) == s) {
                    return i;
                }
            }
            return -1;
        }

        private static boolean kept(Collection<Tensor> keep, Storage s) {
            for (Tensor t : keep) {
                if (t != null && t.storage() == s) {
                    return true;
                }
            }
            return false;
        }

        /** Ends the scope keeping the storages behind {@code keep} (null entries are ignored). */
        public void close(Collection<Tensor> keep) {
            State st = STATE.get();
            st.scopes.remove(st.scopes.lastIndexOf(this));
            Scope parent = top(st);
            List<Storage> temporaries = null;
            for (int i = 0; i < pending.size(); i++) {
                Storage s = pending.get(i);
                boolean releasedAlready = releasedEarly.get(i);
                boolean isKept = kept(keep, s);
                if (isKept && !releasedAlready && parent != null) {
                    parent.pending.add(s);
                    parent.releasedEarly.add(Boolean.FALSE);
                    continue;
                }
                s.setCategory(isKept ? keepCategory : MemoryCategory.TEMPORARY);
                announce(s);
                if (releasedAlready) {
                    released(s);
                } else if (!isKept) {
                    if (temporaries == null) {
                        temporaries = new ArrayList<>();
                    }
                    temporaries.add(s);
                }
            }
            if (temporaries != null) {
                for (Storage s : temporaries) {
                    s.release();
                }
            }
            pending.clear();
            releasedEarly.clear();
        }
    }
}
