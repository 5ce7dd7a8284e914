package io.gradscope.engine.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.forward.Tangents;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@link Recorder#active()} and {@link Tangents#active()} answer from a count of open recorders and
 * levels before looking at the thread's: the answer must stay per thread, and closing twice must
 * not make a later recorder or level look closed.
 */
class OpenCountTest {
    @Test
    void aRecorderOnAnotherThreadLeavesThisOneInactive() throws InterruptedException {
        AtomicBoolean there = new AtomicBoolean();
        AtomicBoolean here = new AtomicBoolean(true);
        Thread t = new Thread(() -> {
            try (Recorder r = Recorder.start()) {
                there.set(Recorder.active());
                Thread peek = new Thread(() -> here.set(Recorder.active()));
                peek.start();
                try {
                    peek.join();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        t.start();
        t.join();
        assertTrue(there.get());
        assertFalse(here.get());
        assertFalse(Recorder.active());
    }

    @Test
    void closingARecorderTwiceDoesNotHideTheNextOne() {
        Recorder first = Recorder.start();
        first.close();
        first.close();
        assertFalse(Recorder.active());
        try (Recorder second = Recorder.start()) {
            assertTrue(Recorder.active());
            Tensor x = Tensor.fromDoubles(DType.FLOAT64, new double[] {1, 2}, 2).setRequiresGrad(true);
            Ops.mul(x, x);
            assertTrue(second.size() > 0, "the op's events reached the open recorder");
        }
        assertFalse(Recorder.active());
    }

    @Test
    void closingALevelTwiceDoesNotHideTheNextOne() {
        Tangents.Level first = Tangents.open();
        first.close();
        first.close();
        assertFalse(Tangents.active());
        Tensor x = Tensor.fromDoubles(DType.FLOAT64, new double[] {1, 2}, 2);
        try (Tangents.Level second = Tangents.open()) {
            assertTrue(Tangents.active());
            Tangents.set(x, Tensor.fromDoubles(DType.FLOAT64, new double[] {1, 0}, 2));
            Tensor jv = Tangents.of(Ops.mul(x, x));
            assertNotNull(jv, "the product carried a tangent");
            // d(x*x) along (1, 0) at x = (1, 2): (2*1*1, 0).
            assertEquals(2.0, jv.storage().doubles()[0], 1e-12);
            assertEquals(0.0, jv.storage().doubles()[1], 1e-12);
        }
        assertFalse(Tangents.active());
    }
}
