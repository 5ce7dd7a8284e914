package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.program.Program;
import io.gradscope.engine.program.ProgramGraph;
import io.gradscope.engine.program.ProgramRun;
import io.gradscope.engine.program.RunOptions;
import io.gradscope.engine.tensor.DType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The view-model without a window: cursor moves, node states at every step, the gradients shown. */
class SessionViewModelTest {
    static final String CHAIN = "X = input(4, 3)\nW = param(3, 2)\nY = X @ W\nh = relu(Y)\nloss = sum(h)\n";

    static SessionViewModel session() {
        ProgramRun run = Program.parse("chain.grad", CHAIN).run(new RunOptions(DType.FLOAT64, 7, Map.of()));
        SessionViewModel vm = new SessionViewModel();
        vm.showRun(run);
        return vm;
    }

    @Test
    void theBackwardSweepVisitsLossReluMatmulThenTheWeights() {
        SessionViewModel vm = session();
        assertEquals(4, vm.steps());
        assertEquals(-1, vm.cursor().get());
        List<String> order = new java.util.ArrayList<>();
        while (vm.stepForward()) {
            order.add(vm.vertex(vm.currentVertex()).title());
        }
        assertEquals(List.of("loss", "h", "Y", "W"), order);
        assertFalse(vm.stepForward(), "no step past the end");
        assertEquals(3, vm.cursor().get());
        vm.toStart();
        assertEquals(-1, vm.cursor().get());
        assertFalse(vm.stepBack());
        vm.toEnd();
        assertEquals(3, vm.cursor().get());
    }

    @Test
    void nodeStatesFollowTheCursor() {
        SessionViewModel vm = session();
        // vertices: 0 X, 1 W, 2 Y, 3 h, 4 loss
        Sweep.State[][] expected = {
            {Sweep.State.OUTSIDE, Sweep.State.PENDING, Sweep.State.PENDING, Sweep.State.PENDING, Sweep.State.PENDING},
            {Sweep.State.OUTSIDE, Sweep.State.PENDING, Sweep.State.PENDING, Sweep.State.PENDING, Sweep.State.CURRENT},
            {Sweep.State.OUTSIDE, Sweep.State.PENDING, Sweep.State.PENDING, Sweep.State.CURRENT, Sweep.State.VISITED},
            {Sweep.State.OUTSIDE, Sweep.State.PENDING, Sweep.State.CURRENT, Sweep.State.VISITED, Sweep.State.VISITED},
            {Sweep.State.OUTSIDE, Sweep.State.CURRENT, Sweep.State.VISITED, Sweep.State.VISITED, Sweep.State.VISITED}};
        for (int step = -1; step < 4; step++) {
            vm.cursor().set(step);
            for (int v = 0; v < 5; v++) {
                assertEquals(expected[step + 1][v], vm.state(v), "vertex " + v + " at cursor " + step);
            }
        }
        // Back again: stepping back only moves the cursor.
        vm.stepBack();
        assertEquals(Sweep.State.CURRENT, vm.state(2));
        vm.mode().set(Sweep.Mode.FORWARD);
        assertEquals(-1, vm.cursor().get(), "switching the pass starts it over");
        assertEquals(5, vm.steps());
        vm.stepForward();
        assertEquals(Sweep.State.CURRENT, vm.state(0));
        assertEquals(Sweep.State.PENDING, vm.state(4));
    }

    @Test
    void theUpstreamGradientShownIsTheEnginesAndMatchesAnIndependentComputation() {
        SessionViewModel vm = session();
        ProgramGraph g = vm.sweep().get().graph();
        double[] x = g.vertices().get(0).value().toDoubleArray();
        double[] y = g.vertices().get(2).value().toDoubleArray();
        assertNull(vm.upstream(3), "h has not been reached before the first step");
        vm.toEnd();
        // d loss / d h = 1 everywhere; d loss / d Y = [Y > 0]; d loss / d W = Xᵀ [Y > 0].
        double[] ones = {1, 1, 1, 1, 1, 1, 1, 1};
        assertArrayEquals(ones, vm.upstream(3).toDoubleArray(), 0);
        double[] mask = new double[8];
        for (int i = 0; i < 8; i++) {
            mask[i] = y[i] > 0 ? 1 : 0;
        }
        assertArrayEquals(mask, vm.upstream(2).toDoubleArray(), 0);
        double[] dw = new double[6];
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 2; j++) {
                for (int i = 0; i < 4; i++) {
                    dw[k * 2 + j] += x[i * 3 + k] * mask[i * 2 + j];
                }
            }
        }
        assertArrayEquals(dw, vm.upstream(1).toDoubleArray(), 1e-12);
        assertArrayEquals(vm.sweep().get().run().gradient("W").toDoubleArray(), vm.upstream(1).toDoubleArray(), 0);
        assertNull(vm.upstream(0), "X needs no gradient");
    }

    @Test
    void theCurrentStepLightsTheEdgesItSendsAlong() {
        SessionViewModel vm = session();
        vm.cursor().set(2); // Y = X @ W sends only to W (X needs no gradient)
        var edges = vm.sweep().get().activeEdges(vm.mode().get(), vm.cursor().get());
        assertEquals(1, edges.size());
        assertEquals(1, edges.iterator().next().from(), "the edge from W");
        var sent = vm.sweep().get().contributions(2);
        assertEquals(1, sent.size());
        assertEquals(1, sent.get(0).toVertex());
    }

    @Test
    void findSelectsByNameAndSelectionWinsOverTheCursor() {
        SessionViewModel vm = session();
        vm.stepForward();
        assertEquals(4, vm.inspectedVertex());
        assertTrue(vm.find("W"));
        assertEquals(1, vm.inspectedVertex());
        assertTrue(vm.find("rel"), "a partial match of an op name");
        assertEquals(3, vm.selected().get());
        assertFalse(vm.find("nothing"));
    }
}
