package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.forward.Tangents;
import io.gradscope.engine.tensor.StorageRole;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The observers Ops.run calls (Note [Op observers]): who installs them, and the order their effects show in a trace. */
class OpObserversTest {
    @Test
    void autogradTraceAndForwardModeAreInstalledInTheirPlaces() throws Exception {
        // the packages install theirs as their classes start, in whatever order
        Class.forName("io.gradscope.engine.forward.Tangents");
        Class.forName("io.gradscope.engine.autograd.Node");
        assertArrayEquals(new int[] {OpObserver.AUTOGRAD, OpObserver.TRACE, OpObserver.FORWARD_MODE}, OpObservers.places());
    }

    @Test
    void anOpsNodeOwnsItsOutputThenItsEventThenItsTangentAreRecorded() {
        double[] xs = {0.5, -1, 2};
        double[] vs = {1, 0.25, -2};
        Tensor x = Tensor.of(xs, 3).setRequiresGrad(true);
        Tensor y;
        List<TraceEvent> events;
        try (Recorder rec = Recorder.start(); Tangents.Level level = Tangents.open()) {
            Tangents.set(x, Tensor.of(vs, 3));
            y = Ops.tanh(x);
            events = rec.trace().events();
            double[] expected = new double[3];
            for (int i = 0; i < 3; i++) {
                double t = Math.tanh(xs[i]);
                expected[i] = (1 - t * t) * vs[i];
            }
            assertClose(expected, Tangents.of(y).toDoubleArray(), 1e-12, 1e-14, "forward mode's tangent of tanh");
        }
        assertTrue(y.nodeId() > x.nodeId(), "autograd recorded the output's node");
        int alloc = -1;
        int forward = -1;
        int tangent = -1;
        for (int i = 0; i < events.size(); i++) {
            TraceEvent e = events.get(i);
            if (e instanceof TraceEvent.Alloc a && a.node() == y.nodeId() && a.role() == StorageRole.VALUE && alloc < 0) {
                alloc = i;
            } else if (e instanceof TraceEvent.OpForward f && f.node() == y.nodeId()) {
                forward = i;
            } else if (e instanceof TraceEvent.Tangent t && t.node() == y.nodeId() && !t.backward()) {
                tangent = i;
            }
        }
        assertFalse(alloc < 0, "the output's storage is owned by its node (autograd ran before the allocations were announced)");
        assertTrue(alloc < forward && forward < tangent, "alloc, forward event, tangent: " + alloc + ", " + forward + ", " + tangent);
        assertEquals(List.of(x.nodeId()), ((TraceEvent.OpForward) events.get(forward)).inputs());
    }
}
