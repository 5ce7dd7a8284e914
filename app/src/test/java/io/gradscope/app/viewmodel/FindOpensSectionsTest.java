package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.layout.Hierarchy;
import io.gradscope.app.service.RunService;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Find shows the node it found: the folded sections that hold it open, and the node itself is drawn and selected. */
class FindOpensSectionsTest {

    @Test
    void findingANodeInsideFoldedSectionsOpensThemAndSelectsTheNodeItself() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.openText("chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        SweepViewModel vm = session.sweep();
        int before = vm.layout().get().collapsed().size();
        List<String> found = new ArrayList<>();
        vm.found().addListener((o, a, b) -> {
            if (b != null) {
                found.add(b);
            }
        });
        assertTrue(vm.find("h700"));
        int v = vm.selected().get();
        Hierarchy h = vm.layout().get().source().hierarchy();
        List<String> holding = h.chain(v);
        assertTrue(holding.size() >= 2, "h700 is in a section inside a section: " + holding);
        // Drawn as itself, not as the outline of a folded section.
        assertEquals("v" + v, vm.keyOf(v));
        assertTrue(vm.layout().get().nodes().containsKey("v" + v));
        assertEquals("v" + v, vm.graphStates().selectedKey());
        assertEquals(List.of("v" + v), found, "the graph is told once, when the node is drawn");
        for (String c : holding) {
            assertFalse(vm.layout().get().collapsed().contains(c), c + " opened");
        }
        // Only what holds it opened: the other sections stay folded.
        assertEquals(before - holding.size(), vm.layout().get().collapsed().size());
        assertTrue(session.status().get().startsWith("Found h700 (opened lines "), session.status().get());
        // Found again: nothing left to open, the graph is told again.
        assertTrue(vm.find("h700"));
        assertEquals(2, found.size());
        assertEquals("Found h700", session.status().get().split(" \\(")[0]);
    }
}
