package io.gradscope.engine.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Backends;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Tensor;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TraceTest {

    @Test
    void recordsForwardOpsBackwardStepsAndAllocationsByCategory() throws Exception {
        Trace trace;
        Tensor w;
        Tensor loss;
        try (Recorder rec = Recorder.start()) {
            Tensor x = Tensor.of(new double[] {1, -2, 3, 4, 5, -6}, 2, 3);
            w = Allocations.withCategory(MemoryCategory.PARAMETER,
                    () -> Tensor.of(new double[] {0.5, -1, 2, 1, -0.5, 0.25}, 3, 2).setRequiresGrad(true));
            // mean: its forward scales a sum, which is a temporary (ReLU's VJP no longer makes one: it is fused)
            loss = Ops.mean(Ops.relu(Ops.matmul(x, w)));
            Backward.run(loss);
            trace = rec.trace();
        }
        List<TraceEvent.OpForward> fwd = trace.of(TraceEvent.OpForward.class);
        assertEquals(List.of("matmul", "relu", "mean"), fwd.stream().map(TraceEvent.OpForward::op).toList());
        assertEquals(List.of(2, 3), List.of(fwd.get(0).inputShapes().get(0)[0], fwd.get(0).inputShapes().get(0)[1]));
        assertEquals(-1L, fwd.get(0).inputs().get(0), "x is a constant: no node");
        assertEquals(w.node().id(), fwd.get(0).inputs().get(1));

        List<TraceEvent.BackwardStep> steps = trace.of(TraceEvent.BackwardStep.class);
        assertEquals(4, steps.size());
        assertEquals(loss.node().id(), steps.get(0).node());
        assertEquals(1.0, steps.get(0).upstream().item(), "seed gradient 1");

        Map<MemoryCategory, Integer> allocs = new EnumMap<>(MemoryCategory.class);
        Map<Long, MemoryCategory> live = new HashMap<>();
        for (TraceEvent e : trace.events()) {
            if (e instanceof TraceEvent.Alloc a) {
                allocs.merge(a.category(), 1, Integer::sum);
                live.put(a.storage(), a.category());
                assertTrue(a.bytes() >= 0);
            } else if (e instanceof TraceEvent.Free f) {
                assertEquals(live.remove(f.storage()), f.category(), "a free matches its allocation");
            }
        }
        for (MemoryCategory c : java.util.EnumSet.range(MemoryCategory.PARAMETER, MemoryCategory.TEMPORARY)) {
            assertTrue(allocs.getOrDefault(c, 0) > 0, "no allocation of category " + c + ": " + allocs);
        }
        assertEquals(MemoryCategory.PARAMETER, w.storage().category());

        JsonNode json = new ObjectMapper().readTree(TraceJson.toJson(trace));
        assertEquals(trace.events().size(), json.get("events").size());
        JsonNode firstStep = null;
        for (JsonNode e : json.get("events")) {
            if (e.get("type").asText().equals("BackwardStep")) {
                firstStep = e;
                break;
            }
        }
        assertEquals(1.0, firstStep.get("upstream").get("data").get(0).asDouble());
        assertEquals("float64", firstStep.get("upstream").get("dtype").asText());
    }

    @Test
    void releasingReturnsBytesToTheBackend() {
        long before = Backends.of(Device.CPU).liveBytes();
        Tensor t = Tensor.zeros(DType.FLOAT32, 1000);
        assertEquals(before + 4000, Backends.of(Device.CPU).liveBytes());
        t.storage().release();
        t.storage().release();
        assertEquals(before, Backends.of(Device.CPU).liveBytes());
    }
}
