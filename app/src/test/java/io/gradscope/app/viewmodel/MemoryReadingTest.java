package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The first run's memory track is read after the run is shown: meanwhile the memory panel said "No run
 * yet" while the status line said the program ran (seen on a 2,803-node program), because the track,
 * null before and null while read, never changed. The view-model now says it is reading, from the run's
 * arrival until its track is read.
 */
class MemoryReadingTest {
    @Test
    void fromTheFirstRunUntilItsTrackIsReadTheMemoryIsBeingRead() throws IOException {
        Deque<Runnable> work = new ArrayDeque<>();
        SessionViewModel vm = new SessionViewModel(new RunService(work::add, Runnable::run));
        MemoryViewModel m = vm.memory();
        List<Boolean> heard = new java.util.ArrayList<>();
        m.readingProperty().addListener((o, a, b) -> heard.add(b));
        assertFalse(m.hasRun());
        vm.openText("residual.grad", Files.readString(Path.of("../assets/examples/residual_checkpoint.grad")));
        // The run is the first piece of work; reading its memory track comes after it.
        while (vm.sweep().recorded().get() == null && !work.isEmpty()) {
            work.poll().run();
        }
        assertNotNull(vm.sweep().recorded().get(), vm.status().get());
        assertTrue(vm.status().get().startsWith("Ran"), vm.status().get());
        assertNull(m.track().get(), "the track is read after the run is shown");
        assertTrue(m.hasRun());
        assertTrue(m.reading(), "the panel is told the track is being read");
        assertTrue(heard.contains(true), "listeners hear that reading began: " + heard);
        while (!work.isEmpty()) {
            work.poll().run();
        }
        assertNotNull(m.track().get());
        assertFalse(m.reading());
    }
}
