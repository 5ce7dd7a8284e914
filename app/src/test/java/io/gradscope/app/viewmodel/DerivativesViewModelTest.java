package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.Direction;
import io.gradscope.app.service.RunService;
import io.gradscope.app.service.TangentChoice;
import io.gradscope.engine.forward.Hvp;
import io.gradscope.engine.run.Directional;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Forward mode and H·v through the view-model, without a window: what it shows is what the engine computes. */
class DerivativesViewModelTest {
    static final RunOptions F64 = new RunOptions(DType.FLOAT64, 0, Map.of());

    private static int vertex(SweepViewModel s, String name) {
        return s.recorded().get().find(name);
    }

    @Test
    void aTangentRunShowsEveryValuesJvpAsTheEngineComputesIt() {
        SessionViewModel vm = SessionViewModelTest.session();
        DerivativesViewModel d = vm.derivatives();
        assertTrue(d.tangents().get().isEmpty(), "no tangent until one is chosen");
        assertEquals(java.util.List.of("X", "W"), d.leaves().stream().map(DerivativesViewModel.LeafInfo::name).toList());
        d.setTangent(new TangentChoice("W", "random"));
        assertEquals(new TangentChoice("W", "random"), d.tangent().get());
        assertTrue(vm.status().get().contains("tangent random on W"), vm.status().get());
        Program p = Program.parse("chain.grad", SessionViewModelTest.CHAIN);
        Tensor v = Direction.parse("tangent", "random", new int[] {3, 2}, DType.FLOAT64, 0);
        Directional.JvpResult jvp = Directional.jvp(p, F64, "W", v);
        SweepViewModel s = vm.sweep();
        for (String name : new String[] {"W", "Y", "h", "loss"}) {
            TraceEvent.Tangent t = d.valueTangent(vertex(s, name));
            assertNotNull(t, name);
            assertArrayEquals(jvp.tangents().get(name).toDoubleArray(), t.tangent().toDoubleArray(), 1e-12, name);
        }
        assertNull(d.valueTangent(vertex(s, "X")), "X does not depend on W");
        assertEquals("Ẏ = Ȧ·B + A·Ḃ", d.valueTangent(vertex(s, "Y")).rule(), "the matmul's JVP rule");
        // Clearing it runs plain again.
        d.setTangent(null);
        assertTrue(d.tangents().get().isEmpty());
    }

    @Test
    void theHvpViewOpensAtTheEndOfTheSecondSweepWithTheLeafSelected() throws Exception {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        Path file = Path.of("../assets/examples/course/09_hessian_vector.grad");
        int requests = vm.derivatives().hvpRequests().get();
        vm.open(file);
        DerivativesViewModel d = vm.derivatives();
        SweepViewModel s = vm.sweep();
        assertEquals(requests + 1, d.hvpRequests().get(), "# open: hvp asks for the H·v view");
        assertEquals(new TangentChoice("w", "random"), d.tangent().get());
        assertEquals(Sweep.Mode.BACKWARD, s.mode().get());
        assertEquals(s.steps() - 1, s.cursor().get(), "at the end of the second sweep");
        int w = vertex(s, "w");
        assertEquals(w, s.selected().get());
        Program p = Program.load(file);
        Tensor v = Direction.parse("vector", "random", new int[] {4}, DType.FLOAT64, 0);
        double[] expected = Directional.hvp(p, F64, "w", v, Hvp.Method.REVERSE_OVER_REVERSE).toDoubleArray();
        assertArrayEquals(expected, d.hvp().get().toDoubleArray(), 1e-10);
        assertArrayEquals(expected, d.upstreamTangent(w).tangent().toDoubleArray(), 1e-10);
        assertEquals("w", d.hvpLeaf().get());
        // Stepping back before the leaf's step hides its tangent, as it hides its gradient.
        s.jumpTo(s.recorded().get().backwardStepOf(w) - 1);
        assertNull(d.upstreamTangent(w));
        // Every backward step carries the tangent of its upstream gradient.
        s.toEnd();
        for (TraceGraph.Vertex x : s.recorded().get().graph().vertices()) {
            if (s.recorded().get().backwardStepOf(x.index()) >= 0) {
                assertNotNull(d.upstreamTangent(x.index()), x.title());
            }
        }
    }

    @Test
    void theHessianIsComputedColumnByColumnAndIsSymmetric() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(Path.of("../assets/examples/course/09_hessian_vector.grad"));
        DerivativesViewModel d = vm.derivatives();
        d.computeHessian();
        Tensor h = d.hessian().get();
        assertNotNull(h, d.hessianNote().get());
        assertArrayEquals(new int[] {4, 4}, h.shape());
        double[] m = h.toDoubleArray();
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                assertEquals(m[i * 4 + j], m[j * 4 + i], 1e-10, "symmetric at " + i + "," + j);
            }
        }
        // H times the view's vector is the H·v shown.
        double[] v = Direction.parse("vector", "random", new int[] {4}, DType.FLOAT64, 0).toDoubleArray();
        double[] hv = d.hvp().get().toDoubleArray();
        for (int i = 0; i < 4; i++) {
            double sum = 0;
            for (int j = 0; j < 4; j++) {
                sum += m[i * 4 + j] * v[j];
            }
            assertEquals(hv[i], sum, 1e-10);
        }
        assertTrue(d.hessianNote().get().contains("4 × 4"), d.hessianNote().get());
    }

    @Test
    void aForwardOpenLineStartsOnTheForwardSweepCarryingItsTangent() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(Path.of("../assets/examples/course/01_dual_numbers.grad"));
        assertEquals(new TangentChoice("x", "ones"), vm.derivatives().tangent().get());
        assertEquals(Sweep.Mode.FORWARD, vm.sweep().mode().get());
        SweepViewModel s = vm.sweep();
        double x = s.vertex(vertex(s, "x")).value().item();
        double df = vm.derivatives().valueTangent(vertex(s, "f")).tangent().item();
        assertEquals(2 * x + Math.cos(x), df, 1e-12, "f'(x) = 2x + cos x, from one forward pass");
        // A program without an open line starts plain.
        vm.openText("chain.grad", SessionViewModelTest.CHAIN);
        assertNull(vm.derivatives().tangent().get());
        assertTrue(vm.derivatives().tangents().get().isEmpty());
    }

    @Test
    void aCheckOpenLineChecksEveryGradientOnceTheRunIsShown() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(Path.of("../assets/examples/course/08_gradient_check.grad"));
        assertEquals(Sweep.Mode.BACKWARD, vm.sweep().mode().get());
        DiagnosticsViewModel d = vm.diagnostics();
        long ops = vm.sweep().recorded().get().graph().vertices().stream()
                .filter(v -> v.kind() == io.gradscope.engine.trace.TraceGraph.Kind.OP || v.kind() == io.gradscope.engine.trace.TraceGraph.Kind.OBJECTIVE).count();
        assertEquals(ops, d.checked(), "every op node checked");
        for (int v = 0; v < vm.sweep().recorded().get().graph().size(); v++) {
            var c = d.check(v);
            assertTrue(c == null || c.ok(), String.valueOf(c));
        }
        // Reopening a program without the line checks nothing new.
        vm.openText("chain.grad", SessionViewModelTest.CHAIN);
        assertEquals(0, d.checked());
    }

    @Test
    void aLeafThatIsGoneRunsWithoutATangentAndSaysSo() {
        SessionViewModel vm = SessionViewModelTest.session();
        vm.derivatives().setTangent(new TangentChoice("W", "onehot:5"));
        assertEquals(5, vm.derivatives().tangent().get().element());
        vm.edit(SessionViewModelTest.CHAIN.replace("W", "V"));
        vm.run();
        assertNull(vm.error().get());
        assertNull(vm.derivatives().tangent().get());
        assertTrue(vm.status().get().startsWith("No leaf 'W' any more"), vm.status().get());
    }

    @Test
    void aDirectionOutsideTheLeafIsAnErrorNotACrash() {
        SessionViewModel vm = SessionViewModelTest.session();
        vm.derivatives().setTangent(new TangentChoice("W", "onehot:99"));
        assertNotNull(vm.error().get());
        assertTrue(vm.error().get().what().contains("element 99 is outside"), vm.error().get().what());
    }
}
