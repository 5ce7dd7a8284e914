package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The scalar graph of a node of the run on screen, without a window: the engine's scalars against the recorded VJP. */
class ScalarGraphTest {
    @Test
    void aMatmulsScalarsCarryTheRecordedVjpAndALeafIsRefused() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(Path.of("../assets/examples/course/03_matmul_vjp.grad"));
        Sweep s = vm.sweep().recorded().get();
        int y = s.find("Y");
        ScalarGraph g = ScalarGraph.of(s, y);
        assertTrue(g.drawn(), g.message());
        // A = [2, 3], B = [3, 2]: 12 inputs, 12 products, 4 partial sums, 4 outputs.
        assertEquals(32, g.scalars().size());
        double[] dA = s.backwardStep(s.backwardStepOf(y)).contributions().get(0).gradient().toDoubleArray();
        for (ScalarGraph.Scalar x : g.scalars()) {
            if (x.role() == ScalarGraph.Role.INPUT && x.input() == 0) {
                assertEquals(dA[x.element()], x.grad(), 1e-12 * Math.max(1, Math.abs(dA[x.element()])), x.label());
            }
        }
        assertTrue(g.agreement() <= 1e-12, "Σ paths agrees with the engine's VJP: " + g.agreement());
        ScalarGraph leaf = ScalarGraph.of(s, s.find("A"));
        assertFalse(leaf.drawn());
        assertTrue(leaf.message().contains("is a leaf"), leaf.message());
    }
}
