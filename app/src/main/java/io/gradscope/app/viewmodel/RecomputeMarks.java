package io.gradscope.app.viewmodel;

import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;

/**
 * The graph's nodes that the run's remat plan recomputes, drawn with a violet outline (a collapsed
 * group holding one gets it too): the nodes of the trace's Recompute events, the ops the engine ran
 * again (a value the plan drops that no backward step needs is not run again, and is not marked).
 * Shown from the start, before the backward sweep gets there; the current node keeps the sweep's look.
 */
public final class RecomputeMarks implements Decorator {
    /** The outline of a recomputed node (the memory panel's legend uses it too). */
    public static final String COLOUR = "#8e44ad";
    private static final Paint PAINT = Paint.outline(COLOUR, 3);

    private final SweepViewModel sweep;
    private final ReadOnlyIntegerWrapper revision = new ReadOnlyIntegerWrapper(this, "revision");
    private BitSet vertices = new BitSet();
    private Set<String> keys = Set.of();

    public RecomputeMarks(SweepViewModel sweep) {
        this.sweep = sweep;
        sweep.recorded().addListener((o, a, s) -> {
            vertices = s == null ? new BitSet() : of(s);
            rekey();
        });
        sweep.layout().addListener((o, a, b) -> rekey());
    }

    /** The vertices of {@code sweep}'s graph whose ops its run recomputed. */
    public static BitSet of(Sweep sweep) {
        BitSet out = new BitSet();
        for (int step = 0; step < sweep.steps(Sweep.Mode.BACKWARD); step++) {
            int v = sweep.recomputeAt(step) == null ? -1 : sweep.vertexAt(Sweep.Mode.BACKWARD, step);
            if (v >= 0) {
                out.set(v);
            }
        }
        return out;
    }

    /** The vertices marked, in order. */
    public int[] vertices() {
        return vertices.stream().toArray();
    }

    /** How many vertices are marked. */
    public int count() {
        return vertices.cardinality();
    }

    private void rekey() {
        Set<String> k = new HashSet<>();
        for (int v = vertices.nextSetBit(0); v >= 0; v = vertices.nextSetBit(v + 1)) {
            String key = sweep.keyOf(v);
            if (key != null) {
                k.add(key);
            }
        }
        keys = k;
        revision.set(revision.get() + 1);
    }

    /** The violet outline, except on the current node: the sweep's current look stays on it. */
    @Override
    public Paint node(String key) {
        if (!keys.contains(key)) {
            return null;
        }
        return key.startsWith("v") && sweep.state(Integer.parseInt(key.substring(1))) == Sweep.State.CURRENT ? null : PAINT;
    }

    @Override
    public ReadOnlyIntegerProperty revision() {
        return revision.getReadOnlyProperty();
    }
}
