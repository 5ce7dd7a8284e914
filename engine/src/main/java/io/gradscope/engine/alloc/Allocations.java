package io.gradscope.engine.alloc;

import io.gradscope.engine.tensor.Allocators;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.StorageRole;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * Turns backend allocations into {@link TraceEvent.Alloc}/{@link TraceEvent.Free} events with a
 * category, an owner and a role.
 *
 * <p>Note [Allocation scopes]: while an op runs, a {@link Scope} holds back the events of the
 * storages it allocates. When the op ends, the storages it keeps (its output, what it saved for
 * the backward pass) are announced with the scope's category (activation in the forward pass,
 * gradient in the backward pass) and the owners and roles the closer gives; the rest are announced
 * as temporaries and released at once. A nested scope hands the storages it keeps to its parent,
 * which decides their category.
 */
public final class Allocations {
    /** Told of every storage announced on this thread (a step's lifetimes track them). */
    public interface Listener {
        void announced(Storage s);
    }

    /** Per thread: the open scopes (innermost last), the category and owner outside any op, the listener. */
    private static final class State {
        final ArrayList<Scope> scopes = new ArrayList<>();
        /** Closed scopes kept for the next ops (one op after another makes no new lists). */
        final ArrayList<Scope> spare = new ArrayList<>();
        MemoryCategory category = MemoryCategory.ACTIVATION;
        StorageRole role = StorageRole.OTHER;
        long owner = -1;
        Listener listener;
        int unannounced;
    }

    private static final io.gradscope.engine.PerThread<State> STATE = new io.gradscope.engine.PerThread<>(State::new);

    static {
        MemoryCategory.setCurrent(Allocations::currentCategory);
    }

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
    public static <T> T withCategory(MemoryCategory category, Supplier<T> body) {
        return as(category, StorageRole.OTHER, -1, body);
    }

    /** Runs {@code body} with new storages (outside any op) in {@code category}, owned by {@code owner} in {@code role}. */
    public static <T> T as(MemoryCategory category, StorageRole role, long owner, Supplier<T> body) {
        State st = STATE.get();
        MemoryCategory before = st.category;
        StorageRole roleBefore = st.role;
        long ownerBefore = st.owner;
        st.category = category;
        st.role = role;
        st.owner = owner;
        try {
            return body.get();
        } finally {
            st.category = before;
            st.role = roleBefore;
            st.owner = ownerBefore;
        }
    }

    /**
     * Runs {@code body} with its allocations neither announced nor tracked: memory the program does
     * not own (a value handed in from outside, a copy made for the caller after the step).
     */
    public static <T> T unannounced(Supplier<T> body) {
        State st = STATE.get();
        st.unannounced++;
        try {
            return body.get();
        } finally {
            st.unannounced--;
        }
    }

    /** Sets this thread's listener (null: none); returns the one it replaces. */
    public static Listener listen(Listener l) {
        State st = STATE.get();
        Listener before = st.listener;
        st.listener = l;
        return before;
    }

    /** Called by a backend for every new storage. */
    public static void allocated(Storage s) {
        State st = STATE.get();
        if (st.unannounced > 0) {
            s.quiet();
            return;
        }
        Scope top = top(st);
        if (top != null) {
            top.pending.add(s);
            top.releasedEarly.add(Boolean.FALSE);
        } else {
            s.setCategory(st.category);
            s.describe(st.owner, st.role, null);
            announce(s, st);
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
        if (Recorder.active() && !s.isQuiet()) {
            Recorder.emit(new TraceEvent.Free(s.id(), s.bytes(), s.category(), s.device().toString(), reserved(s)));
        }
    }

    /**
     * Moves a live storage to another category: a {@link TraceEvent.Free} in the old one and an
     * {@link TraceEvent.Alloc} in the new one, with the same id, owner and role.
     */
    public static void reclassify(Storage s, MemoryCategory to) {
        if (Recorder.active()) {
            Recorder.emit(new TraceEvent.Free(s.id(), s.bytes(), s.category(), s.device().toString(), reserved(s)));
        }
        s.setCategory(to);
        if (Recorder.active()) {
            Recorder.emit(new TraceEvent.Alloc(s.id(), s.bytes(), to, s.device().toString(), s.owner(), s.role(), s.shape(),
                    reserved(s)));
        }
    }

    private static long reserved(Storage s) {
        return Allocators.of(s.device()).reservedBytes();
    }

    private static void announce(Storage s, State st) {
        if (Recorder.active()) {
            Recorder.emit(new TraceEvent.Alloc(s.id(), s.bytes(), s.category(), s.device().toString(), s.owner(), s.role(),
                    s.shape(), reserved(s)));
        }
        if (st.listener != null) {
            st.listener.announced(s);
        }
    }

    /** Opens a scope whose kept storages get {@code keepCategory}. */
    public static Scope open(MemoryCategory keepCategory) {
        State st = STATE.get();
        Scope s = st.spare.isEmpty() ? new Scope(st) : st.spare.remove(st.spare.size() - 1);
        s.keepCategory = keepCategory;
        st.scopes.add(s);
        return s;
    }

    /**
     * Allocations of one op; see Note [Allocation scopes]. Closed, it goes back to its thread for
     * the next op to open: a caller must not use a scope after closing it.
     */
    public static final class Scope {
        /** The thread's state the scope was opened in (and goes back to). */
        private final State state;
        private MemoryCategory keepCategory;
        private final List<Storage> pending = new ArrayList<>(4);
        private final List<Boolean> releasedEarly = new ArrayList<>(4);

        private Scope(State state) {
            this.state = state;
        }

        private int indexOf(Storage s) {
            for (int i = 0; i < pending.size(); i++) {
                if (pending.get(i) == s) {
                    return i;
                }
            }
            return -1;
        }

        private static int kept(List<Tensor> keep, Storage s) {
            for (int i = 0; i < keep.size(); i++) {
                Tensor t = keep.get(i);
                if (t != null && t.storage() == s) {
                    return i;
                }
            }
            return -1;
        }

        /** Ends the scope keeping the storages behind {@code keep} (null entries are ignored), owner unknown. */
        public void close(Collection<Tensor> keep) {
            StorageRole role = keepCategory == MemoryCategory.GRADIENT ? StorageRole.GRADIENT : StorageRole.VALUE;
            close(new ArrayList<>(keep), -1, role, role, null, true);
        }

        /**
         * Ends the scope keeping the storages behind {@code keep}, all of them and the temporaries
         * owned by {@code owner}: the last kept one in {@code lastRole}, the others as saved tensors.
         * With {@code releaseTemporaries} false the temporaries are announced but not released: a
         * gradient whose graph is recorded (or whose tangents are carried) refers to its intermediate
         * values, which must stay valid.
         */
        public void close(List<Tensor> keep, long owner, StorageRole lastRole, boolean releaseTemporaries) {
            close(keep, owner, lastRole, StorageRole.SAVED, null, releaseTemporaries);
        }

        /**
         * Ends a backward step's scope keeping the gradients {@code grads}: gradient number {@code i}
         * is that of {@code of.get(i)}, owned by its node (-1 without one); the temporaries are
         * {@code opOwner}'s.
         */
        public void closeGradients(List<Tensor> grads, List<Tensor> of, long opOwner, boolean releaseTemporaries) {
            close(grads, opOwner, StorageRole.GRADIENT, StorageRole.GRADIENT, of, releaseTemporaries);
        }

        /** Kept ones as the two above say (by {@code gradientsOf} when given); temporaries {@code owner}'s. */
        private void close(List<Tensor> keep, long owner, StorageRole lastRole, StorageRole otherRole, List<Tensor> gradientsOf,
                           boolean releaseTemporaries) {
            State st = state;
            st.scopes.remove(st.scopes.lastIndexOf(this));
            Scope parent = top(st);
            List<Storage> temporaries = null;
            for (int i = 0; i < pending.size(); i++) {
                Storage s = pending.get(i);
                boolean releasedAlready = releasedEarly.get(i);
                int at = kept(keep, s);
                if (at >= 0 && !releasedAlready && parent != null) {
                    parent.pending.add(s);
                    parent.releasedEarly.add(Boolean.FALSE);
                    continue;
                }
                if (at >= 0) {
                    s.setCategory(keepCategory);
                    if (gradientsOf != null) {
                        Tensor of = at < gradientsOf.size() ? gradientsOf.get(at) : null;
                        s.describeAs(of != null ? of.nodeId() : -1, lastRole, keep.get(at));
                    } else {
                        s.describeAs(owner, at == keep.size() - 1 ? lastRole : otherRole, keep.get(at));
                    }
                } else {
                    s.setCategory(MemoryCategory.TEMPORARY);
                    s.describe(owner, StorageRole.TEMPORARY, null);
                }
                announce(s, st);
                if (releasedAlready) {
                    released(s);
                } else if (at < 0) {
                    if (temporaries == null) {
                        temporaries = new ArrayList<>();
                    }
                    temporaries.add(s);
                }
            }
            if (temporaries != null && releaseTemporaries) {
                for (Storage s : temporaries) {
                    s.release();
                }
            }
            pending.clear();
            releasedEarly.clear();
            if (st.spare.size() < 16) {
                st.spare.add(this);
            }
        }
    }
}
