package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Jacobian tab's "why is this entry nonzero?": a picked entry of the MLP's h by W1 (global
 * pattern) says its one path at these values where h's ReLU is live, and where it is dead (h = 0,
 * read from an evaluation of its own), that the entry is structurally nonzero and the ReLU cuts it;
 * clearing the pick clears it.
 */
class JacobianWhyTest {
    @Test
    void aPickedEntrySaysItsPathsOrWhereTheReluCutsThem() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(JacobianViewModelTest.MLP);
        JacobianViewModel j = vm.jacobian();
        j.setOutput(vm.sweep().recorded().get().find("h"));
        j.setSparsity(Sparsity.GLOBAL);
        JacobianResult r = j.result().get();
        assertNotNull(r, j.note().get());
        double[] h;
        try (var on = GradMode.enable()) {
            h = Program.load(JacobianViewModelTest.MLP).evaluate(new RunOptions(DType.FLOAT32, 0, Map.of())).values().get("h")
                    .toDoubleArray();
        }
        int live = -1;
        int dead = -1;
        for (int i = 0; i < h.length && (live < 0 || dead < 0); i++) {
            if (h[i] > 0 && live < 0) {
                live = i;
            } else if (h[i] == 0 && dead < 0) {
                dead = i;
            }
        }
        assertTrue(live >= 0 && dead >= 0, "the MLP has live and dead ReLUs");
        // h[r, k] depends on W1[a, k]: column a * 64 + k of the Jacobian (W1 is 20 x 64).
        int k = live % 64;
        assertTrue(j.pick(live, 5 * 64 + k));
        String why = j.why().get();
        assertTrue(why.startsWith("Why: entry (" + live + ", " + (5 * 64 + k) + "): 1 path at these values (1 path by the global rules)"),
                why);
        assertTrue(why.contains("relu h["), why);
        int kd = dead % 64;
        assertTrue(j.pick(dead, 7 * 64 + kd));
        why = j.why().get();
        assertTrue(why.contains("is structurally nonzero (1 path by the global rules) but zero at these values"), why);
        assertTrue(why.contains("relu h[" + dead / 64 + ", " + kd + "] does not depend on its input 0"), why);
        assertEquals(0, Math.abs(r.values().get(dead, 7 * 64 + kd)), "zero at these values");
        j.clearPick();
        assertEquals("", j.why().get());
    }
}
