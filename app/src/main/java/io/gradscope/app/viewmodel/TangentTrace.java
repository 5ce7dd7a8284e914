package io.gradscope.app.viewmodel;

import io.gradscope.engine.trace.Trace;
import io.gradscope.engine.trace.TraceEvent;
import java.util.HashMap;
import java.util.Map;

/**
 * The tangents a run carried, by the trace's value ids: J·v of each value (the forward pass, with
 * the op's JVP rule) and the tangent of each upstream gradient (the backward pass of a
 * forward-over-reverse run: at a leaf with a gradient, H·v). Read from the trace, once per run.
 */
public final class TangentTrace {
    /** A run without tangents. */
    public static final TangentTrace NONE = new TangentTrace(Map.of(), Map.of());

    private final Map<Long, TraceEvent.Tangent> forward;
    private final Map<Long, TraceEvent.Tangent> backward;

    private TangentTrace(Map<Long, TraceEvent.Tangent> forward, Map<Long, TraceEvent.Tangent> backward) {
        this.forward = forward;
        this.backward = backward;
    }

    /** The Tangent events of a trace (the first of each id and pass: a value has one tangent). */
    public static TangentTrace of(Trace trace) {
        Map<Long, TraceEvent.Tangent> fwd = new HashMap<>();
        Map<Long, TraceEvent.Tangent> bwd = new HashMap<>();
        for (TraceEvent e : trace.events()) {
            if (e instanceof TraceEvent.Tangent t) {
                (t.backward() ? bwd : fwd).putIfAbsent(t.node(), t);
            }
        }
        return fwd.isEmpty() && bwd.isEmpty() ? NONE : new TangentTrace(Map.copyOf(fwd), Map.copyOf(bwd));
    }

    public boolean isEmpty() {
        return forward.isEmpty() && backward.isEmpty();
    }

    /** J·v of the value {@code id}, or null (it does not depend on the leaf, or the run carried no tangent). */
    public TraceEvent.Tangent forward(long id) {
        return forward.get(id);
    }

    /** The tangent of the upstream gradient the value {@code id} received in the backward pass, or null. */
    public TraceEvent.Tangent backward(long id) {
        return backward.get(id);
    }
}
