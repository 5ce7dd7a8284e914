package io.gradscope.engine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.alloc.MemoryTimeline;
import io.gradscope.engine.recompute.RematPlanner;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.trace.TraceEvent;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A training step on the CUDA backend (a GPU, or the driver stand-in) keeps the same books as on
 * the CPU: recomputed gradients equal plain ones to the bit, the step ends with only parameters,
 * their gradients and what is held, the allocator never reserves less than is active, and the
 * meta device's prediction is the device's measured peak.
 */
class CudaStepMemoryTest {

    @Test
    void aCheckpointedStepOnTheDeviceKeepsTheBooksTheCpuKeeps() {
        StandIn.assumeCuda();
        Program p = Program.load(Path.of("../assets/examples/residual_checkpoint.grad"));
        RunOptions options = new RunOptions(DType.FLOAT32, 0, Map.of(), Device.CUDA);
        ProgramRun plain = p.run(options, new MemoryOptions(RematPolicy.NONE, false), (a, b, c) -> { });
        for (RematPolicy policy : new RematPolicy[] {RematPolicy.SEGMENTS, RematPolicy.SQRT}) {
            RematPlanner.Planned planned = p.plan(options, policy, true);
            for (boolean retain : new boolean[] {false, true}) {
                ProgramRun r = p.run(options, new MemoryOptions(policy, retain), (a, b, c) -> { });
                String what = policy + " retain=" + retain;
                assertTrue(r.memory().recomputedOps() > 0, what + ": recomputed on the device");
                assertTrue(r.trace().events().stream().anyMatch(e -> e instanceof TraceEvent.Recompute), what);
                for (Leaf l : p.check(DType.FLOAT32)) {
                    if (l.grad()) {
                        assertArrayEquals(plain.gradient(l.name()).toDoubleArray(), r.gradient(l.name()).toDoubleArray(), 0.0,
                                what + ": gradient of " + l.name());
                    }
                }
                MemoryTimeline t = r.timeline();
                assertEquals("cuda", r.memory().device());
                MemoryTimeline.Sample end = t.last();
                assertEquals(0, end.of(MemoryCategory.ACTIVATION), what + ": activations left on the device");
                assertEquals(0, end.of(MemoryCategory.TEMPORARY), what + ": temporaries left");
                for (MemoryTimeline.Sample s : t.samples()) {
                    long active = 0;
                    for (MemoryCategory c : MemoryCategory.values()) {
                        active += s.of(c);
                    }
                    assertTrue(s.reserved() >= active, what + ": reserved " + s.reserved() + " < active " + active);
                }
                assertEquals(planned.predictedPeak(), t.peakBytes(), what + ": the meta device predicts the device's peak");
            }
        }
    }
}
