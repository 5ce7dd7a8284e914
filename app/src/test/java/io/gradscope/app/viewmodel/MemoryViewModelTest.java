package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.trace.TraceEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The memory panel's view-model without a window: it follows the sweep, seeks it, picks rows, reruns. */
class MemoryViewModelTest {

    static SessionViewModel session() throws IOException {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("residual.grad", Files.readString(Path.of("../assets/examples/residual_checkpoint.grad")));
        return vm;
    }

    @Test
    void theTrackIsTheRunsMemoryWithItsPhasesAndPeak() throws IOException {
        SessionViewModel s = session();
        MemoryTrack t = s.memory().track().get();
        assertNotNull(t);
        List<MemoryTrack.Phase> phases = t.spans().stream().map(MemoryTrack.Span::phase).distinct().toList();
        assertEquals(List.of(MemoryTrack.Phase.FORWARD, MemoryTrack.Phase.BACKWARD, MemoryTrack.Phase.RECOMPUTE), phases);
        assertEquals(t.timeline().peakBytes(), t.liveAtPeak().stream().mapToLong(MemoryTrack.Row::bytes).sum());
        assertEquals(t.timeline().liveAtPeak().size(), t.liveAtPeak().stream().mapToInt(MemoryTrack.Row::count).sum(),
                "every live tensor is in one row");
        assertEquals(t.liveAtPeak().size(), t.liveAtPeak().stream().map(r -> List.of(r.vertex(), r.role(), r.category(), r.shape()))
                .distinct().count(), "one row per node, role, category and shape");
        assertTrue(t.timeline().last().of(MemoryCategory.HELD_FOR_INSPECTION) > 0, "the app retains what it shows");
        assertTrue(t.summary().startsWith("peak "), t.summary());
        int covered = 0;
        for (MemoryTrack.Span sp : t.spans()) {
            assertEquals(covered, sp.from(), "spans cover the trace in order");
            covered = sp.to();
        }
        assertEquals(t.events(), covered);
    }

    @Test
    void theCursorFollowsTheSweepAndSeekingMovesIt() throws IOException {
        SessionViewModel s = session();
        SweepViewModel sweep = s.sweep();
        MemoryViewModel m = s.memory();
        List<TraceEvent> events = sweep.recorded().get().run().trace().events();
        assertEquals(-1, m.cursorEvent().get());
        sweep.stepForward();
        sweep.stepForward();
        int at = m.cursorEvent().get();
        assertTrue(events.get(at) instanceof TraceEvent.BackwardStep, "the cursor sits on the step's event");
        assertEquals(events.stream().filter(e -> e instanceof TraceEvent.BackwardStep).toList().get(1), events.get(at));
        // Seeking a later event moves the sweep to the last step at or before it.
        // (the backward sweep's steps are its BackwardStep and Recompute events, in trace order).
        int later = -1;
        int steps = 0;
        int step = -1;
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof TraceEvent.BackwardStep || events.get(i) instanceof TraceEvent.Recompute) {
                step++;
            }
            if (events.get(i) instanceof TraceEvent.BackwardStep && ++steps == 7) {
                later = i;
                break;
            }
        }
        m.seek(later + 1);
        assertEquals(step, sweep.cursor().get());
        assertEquals(later, m.cursorEvent().get());
        // An event in the forward pass moves to the forward sweep.
        m.seek(3);
        assertEquals(Sweep.Mode.FORWARD, sweep.mode().get());
        assertTrue(m.cursorEvent().get() <= 3);
    }

    @Test
    void aRowOfThePeakTableSelectsItsNodeAndLine() throws IOException {
        SessionViewModel s = session();
        MemoryViewModel m = s.memory();
        List<MemoryTrack.Row> rows = m.track().get().liveAtPeak();
        int row = -1;
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).vertex() >= 0 && rows.get(i).line() > 0) {
                row = i;
                break;
            }
        }
        m.chooseRow(row);
        assertEquals(rows.get(row).vertex(), s.sweep().selected().get());
        assertEquals(rows.get(row).line(), m.lineToShow().get());
        assertEquals(row, m.chosenRow().get());
    }

    @Test
    void choosingAPolicyReruns() throws IOException {
        SessionViewModel s = session();
        assertTrue(s.memory().track().get().run().memory().recomputedOps() > 0, "the program's checkpoint blocks by default");
        s.memory().choosePolicy(RematPolicy.NONE);
        assertEquals(RematPolicy.NONE, s.remat().get());
        assertEquals(0, s.memory().track().get().run().memory().recomputedOps());
        s.memory().choosePolicy(RematPolicy.SQRT);
        assertEquals(RematPolicy.SQRT, s.memory().track().get().run().memory().policy());
        assertTrue(s.memory().track().get().run().memory().predictedPeak() > 0, "the prediction is shown beside the measured peak");
    }
}
