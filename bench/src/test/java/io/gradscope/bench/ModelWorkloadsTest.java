package io.gradscope.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The bench's whole-model steps: their models ship with the build, import and run one step (shape only, never timed). */
class ModelWorkloadsTest {
    @Test
    void everyModelStepImportsAndRuns() {
        List<Workloads.Workload> all = ModelWorkloads.all();
        assertEquals(List.of("resnet18_step_ms", "transformer_encoder_step_ms"), all.stream().map(Workloads.Workload::key).toList());
        for (Workloads.Workload w : all) {
            double ms = w.setup().get().getAsDouble();
            assertTrue(ms > 0 && Double.isFinite(ms), w.key() + ": " + ms);
        }
    }
}
