package io.gradscope.engine.trace;

import java.util.ArrayList;
import java.util.List;

/** Events without their tensors, for a recorder that keeps no values. */
final class Stripped {
    private Stripped() {
    }

    static TraceEvent of(TraceEvent e) {
        if (e instanceof TraceEvent.OpForward f) {
            // A shown tensor keeps its name and shape as a stand-in, so the inspector can say it was not retained.
            return f.withTensors(null, NotRetained::of);
        }
        if (e instanceof TraceEvent.Leaf l) {
            return new TraceEvent.Leaf(l.node(), l.name(), l.kind(), null, l.requiresGrad(), l.source());
        }
        if (e instanceof TraceEvent.BackwardStep b) {
            List<TraceEvent.Contribution> cs = new ArrayList<>(b.contributions().size());
            for (TraceEvent.Contribution c : b.contributions()) {
                cs.add(new TraceEvent.Contribution(c.input(), c.toNode(), null));
            }
            return new TraceEvent.BackwardStep(b.node(), b.op(), null, List.copyOf(cs));
        }
        if (e instanceof TraceEvent.Recompute r) {
            return new TraceEvent.Recompute(r.node(), r.op(), r.label(), r.segment(), r.flops(), null, r.source());
        }
        return e;
    }
}
