package io.gradscope.engine.alloc;

import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who still needs each storage of one training step: reference counts over the storages announced
 * while it is installed (activations and gradients; parameters and temporaries are not counted).
 * The program holds a value until its last reader has run, a node holds what its VJP reads until
 * its backward step is done, the sweep holds a gradient until it is sent on. When the count falls
 * to zero the storage is freed: released to its allocator, or, when the run retains values for the
 * inspector, moved to {@link MemoryCategory#HELD_FOR_INSPECTION} (see Note [Held for inspection]).
 * A storage nobody holds when its op ends is freed by the next {@link #sweep()}.
 *
 * <p>Note [Held for inspection]: the debugger shows every value and every upstream gradient after
 * the run, so by default it cannot release them. Instead the moment a training step would free a
 * storage is recorded as a Free in its category followed by an Alloc in HELD_FOR_INSPECTION; the
 * program's figures (every other category) are then those of a plain training step, and what the
 * debugger adds is in plain sight beside them. Without retaining, storages really are released
 * and their blocks reused, and the trace keeps no tensors (they would read released blocks).
 * A {@link Retention} between the two keeps what fits in its budget: a storage that does not fit
 * is released, or, when it is smaller than the largest held one, that one is released instead
 * (largest first) and the storage is held.
 *
 * <pre>{@code
 * RefCounts holds = new RefCounts(false);
 * try (var on = holds.install()) {
 *     Tensor y = Ops.tanh(x);        // announced: tracked
 *     holds.hold(y);                 // someone needs it
 *     holds.drop(y);                 // no one does: released
 * }
 * }</pre>
 */
public final class RefCounts implements Allocations.Listener {
    private final Retention retention;
    /** Storages held for inspection under a {@code FIT} retention, largest first, and their bytes. */
    private final java.util.PriorityQueue<Storage> held =
            new java.util.PriorityQueue<>((a, b) -> Long.compare(b.bytes(), a.bytes()));
    private long heldBytes;
    private long dropped;
    /** While set, every storage freed is held for inspection, whatever the retention. */
    private boolean holdingAll;
    private final Map<Storage, int[]> counts = new IdentityHashMap<>();
    private final List<Storage> fresh = new ArrayList<>();
    private long freed;

    /** @param retain keep freed storages for the inspector (held for inspection) instead of releasing them */
    public RefCounts(boolean retain) {
        this(retain ? Retention.ALL : Retention.NONE);
    }

    /** @param retention which freed storages to keep for the inspector (held for inspection); the rest are released */
    public RefCounts(Retention retention) {
        this.retention = retention;
    }

    /** Whether every freed storage is kept for the inspector. */
    public boolean retains() {
        return retention.keepsAll();
    }

    /** Which freed storages are kept for the inspector. */
    public Retention retention() {
        return retention;
    }

    /**
     * While {@code on}, every storage this step frees is held for inspection whatever the retention
     * says (a replay keeps the one backward step it was asked for: a contribution summed into an
     * earlier one is freed before the step's event is published).
     */
    public void holdAll(boolean on) {
        holdingAll = on;
    }

    /** Bytes released that the inspector would have kept under {@link Retention#ALL} (activations and gradients). */
    public long droppedBytes() {
        return dropped;
    }

    /** Starts tracking this thread's announced storages; closing stops it. */
    public Installed install() {
        Allocations.Listener before = Allocations.listen(this);
        return () -> Allocations.listen(before);
    }

    /** Tracking in force until closed. */
    public interface Installed extends AutoCloseable {
        @Override
        void close();
    }

    @Override
    public void announced(Storage s) {
        MemoryCategory c = s.category();
        if (c == MemoryCategory.ACTIVATION || c == MemoryCategory.GRADIENT) {
            counts.put(s, new int[1]);
            fresh.add(s);
        }
    }

    /** Whether {@code t}'s storage is counted here (made during the step, not yet freed). */
    public boolean tracks(Tensor t) {
        return t != null && counts.containsKey(t.storage());
    }

    /** One more holder of {@code t}'s storage (nothing when it is not tracked: a parameter, say). */
    public void hold(Tensor t) {
        if (t == null) {
            return;
        }
        int[] c = counts.get(t.storage());
        if (c != null) {
            c[0]++;
        }
    }

    /** One holder fewer; at none, the storage is freed. */
    public void drop(Tensor t) {
        if (t == null) {
            return;
        }
        Storage s = t.storage();
        int[] c = counts.get(s);
        if (c == null) {
            return;
        }
        if (c[0] <= 0) {
            throw new IllegalStateException("storage " + s.id() + " dropped more often than held");
        }
        if (--c[0] == 0) {
            free(s);
        }
    }

    /** Stops counting {@code t}'s storage: it outlives the step (a leaf's gradient). */
    public void keep(Tensor t) {
        if (t != null) {
            counts.remove(t.storage());
        }
    }

    /** Frees the storages announced since the last sweep that nobody holds. */
    public void sweep() {
        for (Storage s : fresh) {
            int[] c = counts.get(s);
            if (c != null && c[0] == 0) {
                free(s);
            }
        }
        fresh.clear();
    }

    private void free(Storage s) {
        counts.remove(s);
        if (s.isReleased()) {
            return; // released by its op already (a scope's early release)
        }
        freed += s.bytes();
        if (holdingAll) {
            Allocations.reclassify(s, MemoryCategory.HELD_FOR_INSPECTION);
            return;
        }
        switch (retention.kind()) {
            case ALL -> Allocations.reclassify(s, MemoryCategory.HELD_FOR_INSPECTION);
            case NONE -> release(s);
            case FIT -> holdWhatFits(s);
        }
    }

    private void holdWhatFits(Storage s) {
        long budget = retention.budget();
        while (heldBytes + s.bytes() > budget && !held.isEmpty() && held.peek().bytes() > s.bytes()) {
            Storage largest = held.poll();
            heldBytes -= largest.bytes();
            release(largest);
        }
        if (heldBytes + s.bytes() <= budget) {
            held.add(s);
            heldBytes += s.bytes();
            Allocations.reclassify(s, MemoryCategory.HELD_FOR_INSPECTION);
        } else {
            release(s);
        }
    }

    private void release(Storage s) {
        if (!s.isReleased()) {
            dropped += s.bytes();
            s.release();
        }
    }

    /**
     * Ends a step the coarse way: frees every storage still counted except those behind
     * {@code keep} (which stop being counted), however many hold it. For a loop written with the
     * Java API that wants its step's buffers back for the next step without tracking each lifetime.
     */
    public void endStep(java.util.Collection<Tensor> keep) {
        for (Tensor t : keep) {
            keep(t);
        }
        for (Storage s : new ArrayList<>(counts.keySet())) {
            free(s);
        }
        fresh.clear();
    }

    /** The storages still counted, with how many hold each (an empty map once a step is done and swept). */
    public Map<Storage, Integer> live() {
        Map<Storage, Integer> out = new IdentityHashMap<>();
        counts.forEach((s, c) -> out.put(s, c[0]));
        return out;
    }

    /** Bytes freed so far. */
    public long freedBytes() {
        return freed;
    }
}
