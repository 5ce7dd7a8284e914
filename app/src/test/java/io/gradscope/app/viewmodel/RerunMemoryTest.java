package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.alloc.MemoryTimeline;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Running the same program again shows the same memory chart: the reserved bytes are the run's, not the runs' before. */
class RerunMemoryTest {
    @Test
    void rerunningShowsTheSameReservedPeak() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(Path.of("../assets/examples/transformer_block.grad"));
        assertNull(vm.error().get(), vm.status().get());
        MemoryTimeline first = vm.memory().track().get().timeline();
        assertTrue(first.peakReserved() >= first.peakBytes(), "reserved holds the run's peak at least");
        for (int i = 0; i < 3; i++) {
            vm.run();
            assertNull(vm.error().get(), vm.status().get());
            MemoryTimeline again = vm.memory().track().get().timeline();
            assertNotSame(first, again);
            assertEquals(first.peakBytes(), again.peakBytes());
            assertEquals(first.peakReserved(), again.peakReserved(), "re-run " + (i + 1));
        }
    }
}
