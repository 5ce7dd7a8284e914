package io.gradscope.engine.forward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import org.junit.jupiter.api.Test;

/** Tangents ride beside the primal computation without adding to what it records. */
class TangentsTest {
    @Test
    void theOpsInsideAJvpAreNotRecordedAsTheProgramsOps() {
        Tensor x = Tensor.of(new double[] {0.5, -1, 2}, 3);
        long withTangents;
        long without;
        try (Recorder rec = Recorder.start(); Tangents.Level level = Tangents.open()) {
            Tangents.set(x, Tensor.of(new double[] {1, 1, 1}, 3));
            Ops.sum(Ops.mul(Ops.softmax(x, -1), Ops.tanh(x)));
            withTangents = rec.trace().events().stream().filter(e -> e instanceof TraceEvent.OpForward).count();
        }
        try (Recorder rec = Recorder.start()) {
            Ops.sum(Ops.mul(Ops.softmax(x, -1), Ops.tanh(x)));
            without = rec.trace().events().stream().filter(e -> e instanceof TraceEvent.OpForward).count();
        }
        assertEquals(4, without);
        assertEquals(without, withTangents);
    }

    @Test
    void noTangentOutsideALevelAndConstantsHaveNone() {
        Tensor x = Tensor.of(new double[] {1, 2}, 2);
        assertNull(Tangents.of(x));
        try (Tangents.Level level = Tangents.open()) {
            Tensor c = Tensor.of(new double[] {3, 4}, 2);
            assertNull(Tangents.of(Ops.mul(c, c)), "no input has a tangent: the result is a constant");
        }
    }
}
