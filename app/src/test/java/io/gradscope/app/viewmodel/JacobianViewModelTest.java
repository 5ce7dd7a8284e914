package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.jacobian.Coloring;
import io.gradscope.engine.jacobian.Colorings;
import io.gradscope.engine.jacobian.Jacobians;
import io.gradscope.engine.jacobian.ProgramJacobians;
import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceGraph;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Jacobian view through its view-model, without a window: against the engine's dense Jacobians. */
class JacobianViewModelTest {
    static final RunOptions F64 = new RunOptions(DType.FLOAT64, 0, Map.of());
    static final Path MLP = Path.of("../assets/examples/mlp.grad");

    /** Counts the positive entries of a named value, evaluated on its own. */
    static int positives(Path file, String name) {
        try (var on = GradMode.enable()) {
            double[] v = Program.load(file).evaluate(F64).values().get(name).toDoubleArray();
            int n = 0;
            for (double x : v) {
                n += x > 0 ? 1 : 0;
            }
            return n;
        }
    }

    /** The most positive entries in one column of h (32 x 64). */
    static int mostLiveInAColumn(Path file) {
        try (var on = GradMode.enable()) {
            double[] v = Program.load(file).evaluate(F64).values().get("h").toDoubleArray();
            int most = 0;
            for (int k = 0; k < 64; k++) {
                int n = 0;
                for (int r = 0; r < 32; r++) {
                    n += v[r * 64 + k] > 0 ? 1 : 0;
                }
                most = Math.max(most, n);
            }
            return most;
        }
    }

    @Test
    void theMlpsHiddenLayerHasTheNonzerosOfItsDenseJacobianAndAPickLightsItsPath() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(MLP);
        JacobianViewModel j = vm.jacobian();
        Sweep s = vm.sweep().recorded().get();
        int h = s.find("h");
        int w1 = s.find("W1");
        int b1 = s.find("b1");
        int x = s.find("x");
        assertTrue(j.outputs().stream().anyMatch(o -> o.vertex() == h));
        assertEquals(List.of("W1", "b1", "W2", "b2", "h", "logits"), j.leaves(), "the leaves with a gradient, then the named values");
        j.setKind(Coloring.Kind.COLUMN);
        j.setOutput(h);
        assertEquals("W1", j.leaf().get(), "the first leaf h depends on");
        JacobianResult r = j.result().get();
        assertNotNull(r, j.note().get());
        // Each h[r, k] = relu(Σ_a x[r, a] W1[a, k] + b1[k]) depends on the 20 entries of column k of W1.
        assertEquals(2048, r.rows());
        assertEquals(1280, r.cols());
        assertEquals(32 * 64 * 20, r.pattern().nnz());
        SparseMatrix dense = Jacobians.denseByRows(ProgramJacobians.of(Program.load(MLP), F64, "h", "W1"));
        assertTrue(dense.nonzeros().subsetOf(r.pattern()), "the global pattern holds every nonzero");
        for (int i = 0; i < r.rows(); i += 7) {
            for (int c = 0; c < r.cols(); c += 3) {
                assertEquals(dense.get(i, c), r.values().get(i, c), 1e-12, "compressed evaluation is exact");
            }
        }
        assertTrue(Colorings.isValid(r.pattern(), r.coloring()));
        assertEquals(20, r.lowerBound(), "a row holds 20 nonzeros");
        assertEquals(r.coloring().count(), r.products(), "one JVP per color");
        // Local: the rows of dead ReLUs vanish; what is left is the dense Jacobian's nonzeros.
        j.setSparsity(Sparsity.LOCAL);
        r = j.result().get();
        assertEquals(positives(MLP, "h") * 20, r.pattern().nnz());
        assertEquals(dense.nonzeros(), r.pattern());
        // Rows: an entry of W1's column k reaches h[r, k] for every r whose ReLU is live.
        j.setKind(Coloring.Kind.ROW);
        assertEquals(mostLiveInAColumn(MLP), j.result().get().lowerBound());
        assertEquals(j.result().get().coloring().count(), j.result().get().vjps());
        // Picking a nonzero: W1 → matmul → add → relu, not b1 nor x; the value is the dense one.
        Pattern p = j.result().get().pattern();
        int i = 0;
        while (p.rowCount(i) == 0) {
            i++;
        }
        int c = p.row(i)[0];
        assertTrue(j.pick(i, c));
        JacobianViewModel.Pick pick = j.picked().get();
        assertEquals(dense.get(i, c), pick.value(), 1e-12);
        assertEquals(w1, pick.vertices().get(0), "the path starts at the leaf");
        assertEquals(h, pick.vertices().get(pick.vertices().size() - 1));
        assertEquals(4, pick.vertices().size(), pick.via());
        assertEquals("W1 → matmul → add → relu (h)", pick.via());
        assertEquals(JacobianViewModel.PATH_PAINT, j.node("v" + w1));
        assertNull(j.node("v" + b1));
        assertNull(j.node("v" + x));
        TraceGraph g = s.graph();
        for (TraceGraph.Edge e : g.edges()) {
            boolean onPath = pick.vertices().contains(e.from()) && pick.vertices().contains(e.to());
            assertEquals(onPath ? JacobianViewModel.PATH_EDGE : null, j.edge(e), e.toString());
        }
        // A zero is not picked; a new run clears the pick.
        assertFalse(j.pick(i, c + 1), "h[r, k] does not depend on W1's other columns");
        vm.run();
        assertNull(j.picked().get());
        assertNull(j.node("v" + w1));
    }

    @Test
    void aNonzeroLightsOnlyThePathsItsElementsTake() {
        // c_i = sin(w_i) + Σ w: the diagonal goes through both branches, an entry off it only through the sum.
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("two.grad", "w = param(3)\na = sin(w)\nb = sum(w)\nc = a + b\nloss = sum(c * c)\n");
        JacobianViewModel j = vm.jacobian();
        Sweep s = vm.sweep().recorded().get();
        j.setOutput(s.find("c"));
        assertEquals(9, j.result().get().pattern().nnz());
        assertTrue(j.pick(0, 1));
        assertTrue(j.isLit(s.find("b")));
        assertFalse(j.isLit(s.find("a")), "w[1] reaches c[0] only through the sum");
        assertEquals(1.0, j.picked().get().value(), 1e-12);
        assertTrue(j.pick(2, 2));
        assertTrue(j.isLit(s.find("a")));
        assertTrue(j.isLit(s.find("b")));
        double w2 = s.run().values().get("w").toDoubleArray()[2];
        assertEquals(Math.cos(w2) + 1, j.picked().get().value(), 1e-12);
    }

    @Test
    void showingANodeAsksForTheViewAndAValueWithoutGradientIsRefused() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(MLP);
        JacobianViewModel j = vm.jacobian();
        Sweep s = vm.sweep().recorded().get();
        int asked = j.requests().get();
        j.show(s.find("logits"));
        assertEquals(asked + 1, j.requests().get());
        assertEquals("W1", j.leaf().get(), "the first leaf logits depends on");
        assertNotNull(j.result().get(), j.note().get());
        assertEquals(320, j.result().get().rows());
        // A logit depends on every entry of W1: columns cannot share a JVP, so rows are colored.
        assertEquals(Coloring.Kind.ROW, j.result().get().coloring().kind());
        assertTrue(Colorings.isValid(j.result().get().pattern(), j.result().get().coloring()));
        j.show(s.find("x"));
        assertTrue(vm.status().get().contains("has no Jacobian"), vm.status().get());
    }

    @Test
    void aGroupsSubgraphIsItsOutputWithRespectToWhatFlowsIntoIt() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("block.grad", "x = param(2, 3)\na = tanh(x) * 2\nwith group(\"block\"):\n    y = a * a\n"
                + "    z = exp(y) + y\nL = sum(z)\n");
        JacobianViewModel j = vm.jacobian();
        assertEquals(List.of("x", "a", "y", "z"), j.leaves(), "the leaf, then the named values with a gradient (not the objective)");
        assertEquals(List.of("block"), j.groups());
        j.setGroup("block");
        Sweep s = vm.sweep().recorded().get();
        assertEquals("z", s.graph().vertex(j.output().get()).name());
        assertEquals("a", j.leaf().get(), "a value computed before the group, not the leaf behind it");
        assertEquals("block", j.currentGroup());
        JacobianResult r = j.result().get();
        assertNotNull(r, j.note().get());
        // dz/da = (exp(a²) + 1)·2a on the diagonal, zero elsewhere: computed here from x's values.
        double[] x = s.graph().vertex(s.find("x")).value().toDoubleArray();
        assertEquals(6, r.pattern().nnz());
        for (int p = 0; p < 6; p++) {
            for (int q = 0; q < 6; q++) {
                double a = 2 * Math.tanh(x[p]);
                double expected = p == q ? (Math.exp(a * a) + 1) * 2 * a : 0;
                assertEquals(expected, r.values().get(p, q), 1e-12 * Math.max(1, Math.abs(expected)), p + "," + q);
            }
        }
        // The leaf itself stays a choice: z with respect to x goes through tanh too.
        j.setLeaf("x");
        assertNull(j.currentGroup());
        double a0 = 2 * Math.tanh(x[0]);
        assertEquals((Math.exp(a0 * a0) + 1) * 2 * a0 * 2 * (1 - Math.tanh(x[0]) * Math.tanh(x[0])),
                j.result().get().values().get(0, 0), 1e-10);
    }
}
