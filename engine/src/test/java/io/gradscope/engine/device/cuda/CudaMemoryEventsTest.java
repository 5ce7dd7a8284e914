package io.gradscope.engine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Backends;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.Trace;
import io.gradscope.engine.trace.TraceEvent;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A CUDA run reports its device memory as the CPU backend reports host memory: an Alloc per
 * storage with its category and device, each Free matching an Alloc, reads leaving nothing open,
 * and the backend's live bytes following the releases.
 */
class CudaMemoryEventsTest {

    @Test
    void aCudaRunReportsAllocationsAndFreesByCategory() {
        assumeTrue(Backends.cudaAvailable(), () -> "CUDA unavailable: " + Backends.cudaProblem());
        Tensor x = Tensor.fromDoubles(DType.FLOAT32, Device.CUDA, new double[] {1, -2, 3, 4, 5, -6}, 2, 3);
        Trace trace;
        Tensor w;
        Tensor loss;
        int afterBackward;
        try (Recorder rec = Recorder.start()) {
            w = Allocations.withCategory(MemoryCategory.PARAMETER, () -> Tensor.fromDoubles(DType.FLOAT32, Device.CUDA,
                    new double[] {0.5, -1, 2, 1, -0.5, 0.25}, 3, 2).setRequiresGrad(true));
            loss = Ops.sum(Ops.relu(Ops.matmul(x, Ops.transpose(Ops.transpose(w)))));
            Backward.run(loss);
            afterBackward = rec.trace().events().size();
            // Reads, one of them through a temporary contiguous copy.
            assertEquals(15.0, loss.item(), 1e-6);
            w.grad().viewTranspose(0, 1).toDoubleArray();
            trace = rec.trace();
        }
        Map<MemoryCategory, Integer> allocs = new EnumMap<>(MemoryCategory.class);
        Map<Long, TraceEvent.Alloc> live = new HashMap<>();
        for (TraceEvent e : trace.events()) {
            if (e instanceof TraceEvent.Alloc a && a.device().equals("cuda")) {
                allocs.merge(a.category(), 1, Integer::sum);
                live.put(a.storage(), a);
                assertTrue(a.bytes() > 0);
            } else if (e instanceof TraceEvent.Free f && f.device().equals("cuda")) {
                TraceEvent.Alloc a = live.remove(f.storage());
                assertTrue(a != null, "a free without its allocation: " + f);
                assertEquals(a.category(), f.category(), "a free matches its allocation");
                assertEquals(a.bytes(), f.bytes());
            }
        }
        for (MemoryCategory c : java.util.EnumSet.range(MemoryCategory.PARAMETER, MemoryCategory.TEMPORARY)) {
            assertTrue(allocs.getOrDefault(c, 0) > 0, "no CUDA allocation of category " + c + ": " + allocs);
        }
        // What is still open after the run is what the run keeps: no read left anything behind.
        for (TraceEvent.Alloc a : live.values()) {
            assertTrue(trace.events().indexOf(a) < afterBackward, "a read left " + a + " open");
        }
        assertEquals(MemoryCategory.PARAMETER, w.storage().category());
        long before = Backends.cuda().liveBytes();
        long bytes = w.grad().storage().bytes();
        w.grad().storage().release();
        assertEquals(before - bytes, Backends.cuda().liveBytes());
    }
}
