package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.sparse.SparseMatrix;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * With a leaf selected, the Jacobian tab shows the Jacobian of the last value computed from it with
 * respect to it (z in softmax.grad: ∂p/∂z), not an empty w.r.t. and blank canvases.
 */
class JacobianOfALeafTest {

    @Test
    void aSelectedLeafIsTheWrtOfTheValueComputedFromIt() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(Path.of("../assets/examples/softmax.grad"));
        var s = vm.sweep().recorded().get();
        int z = s.find("z");
        int p = s.find("p");
        vm.sweep().select(z);
        JacobianViewModel j = vm.jacobian();
        j.computeIfNeeded();
        assertEquals(p, j.output().get(), "the value computed from z");
        assertEquals("z", j.leaf().get());
        JacobianResult r = j.result().get();
        assertNotNull(r, j.note().get());
        // softmax along rows: ∂p[r,i]/∂z[r,k] = p[r,i] (δik − p[r,k]), and 0 across rows.
        double[] y = s.graph().vertex(p).value().toDoubleArray();
        SparseMatrix m = r.values();
        assertEquals(20, r.rows());
        assertEquals(20, r.cols());
        for (int a = 0; a < 20; a++) {
            for (int b = 0; b < 20; b++) {
                double expected = a / 5 != b / 5 ? 0 : y[a] * ((a == b ? 1 : 0) - y[b]);
                assertEquals(expected, m.get(a, b), 1e-12, "entry " + a + ", " + b);
            }
        }
        // Choosing the leaf again (the view's node listener) keeps it the w.r.t.
        j.setOutput(z);
        assertEquals(p, j.output().get());
        assertEquals("z", j.leaf().get());
    }
}
