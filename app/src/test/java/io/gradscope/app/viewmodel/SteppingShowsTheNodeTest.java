package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.layout.Hierarchy;
import io.gradscope.app.service.RunService;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A step shows its node: the inspector follows the current step (a node clicked before is let go),
 * and a step into folded sections opens them, as Find does; what stepping opened folds back once the
 * steps have left it.
 */
class SteppingShowsTheNodeTest {

    @Test
    void aStepInspectsItsNodeAndOpensTheFoldedSectionsHoldingIt() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.openText("chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        SweepViewModel vm = session.sweep();
        vm.select(0);
        assertEquals(0, vm.inspection().get().vertex());
        Hierarchy h = vm.layout().get().source().hierarchy();
        int foldedAtOpen = vm.layout().get().collapsed().size();
        for (int i = 0; i < 3; i++) {
            vm.stepForward();
        }
        int v = vm.currentVertex();
        assertEquals(-1, vm.selected().get(), "a step lets the clicked node go");
        assertEquals(v, vm.inspection().get().vertex(), "the inspector shows the step's node");
        List<String> holding = h.chain(v);
        assertFalse(holding.isEmpty(), "step 3's node is in a section");
        assertEquals("v" + v, vm.keyOf(v), "drawn as itself, not as its folded section");
        for (String c : holding) {
            assertFalse(vm.layout().get().collapsed().contains(c), c + " opened");
        }
        // The last step is about the start of the program, in other sections: those open, the ones
        // the steps opened before fold back.
        vm.toEnd();
        int w = vm.currentVertex();
        assertEquals("v" + w, vm.keyOf(w));
        List<String> now = h.chain(w);
        for (String c : holding) {
            if (!now.contains(c)) {
                assertTrue(vm.layout().get().collapsed().contains(c), c + " folded back");
            }
        }
        vm.toStart();
        assertEquals(foldedAtOpen, vm.layout().get().collapsed().size(), "before the first step, everything as it was opened");
    }

    @Test
    void aSectionTheUserOpenedStaysOpenWhenTheStepsLeaveIt() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.openText("chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        SweepViewModel vm = session.sweep();
        vm.stepForward();
        String section = vm.layout().get().source().hierarchy().chain(vm.currentVertex()).get(0);
        // Opened by the step; then the user folds and opens it again: now it is the user's.
        vm.toggleGroup(section);
        vm.toggleGroup(section);
        vm.toEnd();
        assertFalse(vm.layout().get().collapsed().contains(section), "the user's opened section stays open");
    }

    @Test
    void playingFastOpensTheSectionWhereThePlayPauses() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.openText("chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        SweepViewModel vm = session.sweep();
        java.util.Set<String> foldedAtOpen = java.util.Set.copyOf(vm.layout().get().collapsed());
        vm.setSpeed(20);
        vm.play();
        for (int i = 0; i < 3; i++) {
            vm.stepForward();
        }
        assertEquals(foldedAtOpen, java.util.Set.copyOf(vm.layout().get().collapsed()),
                "at 20 steps a second no new layout each step (it would be asked again before it came)");
        int v = vm.currentVertex();
        vm.pause();
        assertEquals("v" + v, vm.keyOf(v), "paused: the step's node is drawn, its sections opened");
        vm.setSpeed(2);
        vm.play();
        vm.stepForward();
        int w = vm.currentVertex();
        assertEquals("v" + w, vm.keyOf(w), "playing slowly, each step opens its sections");
        vm.pause();
    }

    @Test
    void collapseAllFoldsEveryLevel() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.openText("chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        SweepViewModel vm = session.sweep();
        Hierarchy h = vm.layout().get().source().hierarchy();
        assertTrue(h.sections().size() > h.outermost().size(), "sections inside sections: " + h.sections().size());
        vm.expandAll();
        assertTrue(vm.layout().get().collapsed().isEmpty());
        vm.collapseAll();
        assertTrue(vm.layout().get().collapsed().containsAll(h.sections()), "every section folded, the inner ones too");
        assertTrue(vm.layout().get().collapsed().containsAll(h.outermost()));
    }

    @Test
    void backAtTheStartTheOutlineIsFittedAgain() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.openText("chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        SweepViewModel vm = session.sweep();
        vm.takeFitRequest();
        for (int i = 0; i < 3; i++) {
            vm.stepForward();
        }
        assertFalse(vm.takeFitRequest(), "a step into a section keeps the view (it follows the node)");
        vm.toStart();
        assertTrue(vm.takeFitRequest(), "before the first step, the sections folded back: fitted");
    }
}
