package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Check Gradients says how far it is (n of N nodes) and Cancel stops it at the next node. */
class GradientCheckCancelTest {
    @Test
    void cancelStopsTheCheckAtTheNextNode() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(Path.of("../assets/examples/mlp.grad"));
        assertNull(vm.error().get(), vm.status().get());
        List<String> said = new ArrayList<>();
        vm.status().addListener((o, a, b) -> {
            said.add(b);
            if (b.contains(": 2 of ")) {
                vm.cancel();
            }
        });
        vm.diagnostics().checkGradients();
        assertTrue(said.stream().anyMatch(s -> s.endsWith(": 1 of " + total(said) + " nodes…")), said.toString());
        assertFalse(vm.diagnostics().checking().get());
        assertEquals("Gradient check cancelled after 2 of " + total(said) + " nodes", vm.status().get(), said.toString());
        assertEquals(0, vm.diagnostics().checked(), "a cancelled check marks nothing");
        assertTrue(total(said) > 3, said.toString());
        // Without Cancel it runs to the end, and says so.
        said.clear();
        SessionViewModel whole = new SessionViewModel(RunService.direct());
        whole.open(Path.of("../assets/examples/mlp.grad"));
        whole.diagnostics().checkGradients();
        assertTrue(whole.status().get().startsWith("Gradient check: "), whole.status().get());
        assertEquals(1.0, whole.diagnostics().checkProgress().get());
    }

    /** N in the first "n of N nodes" said. */
    private static int total(List<String> said) {
        for (String s : said) {
            int of = s.indexOf(" of ");
            if (s.startsWith("Checking") && of > 0) {
                return Integer.parseInt(s.substring(of + 4, s.indexOf(" nodes", of)));
            }
        }
        return -1;
    }
}
