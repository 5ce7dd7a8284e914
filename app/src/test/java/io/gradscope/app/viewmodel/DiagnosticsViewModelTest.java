package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.service.RunService;
import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.autograd.Gradients;
import io.gradscope.engine.diagnose.RunDiff;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.Trace;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Finding the bad gradient through the view-model, without a window. */
class DiagnosticsViewModelTest {
    @Test
    void jumpToOriginSelectsThePlantedProducerOfEveryFault() throws IOException {
        List<FaultCorpus.Fault> faults = FaultCorpus.faults();
        assertTrue(faults.size() >= 6, "cases: " + faults.size());
        for (FaultCorpus.Fault f : faults) {
            SessionViewModel vm = new SessionViewModel(RunService.direct());
            vm.openText("fault.grad", f.program());
            DiagnosticsViewModel d = vm.diagnostics();
            assertNotNull(d.finite().get(), f.title());
            assertTrue(d.finite().get().anyBad(), f.title());
            assertTrue(d.jumpToOrigin(), f.title());
            SweepViewModel s = vm.sweep();
            TraceGraph.Vertex v = s.vertex(s.selected().get());
            assertEquals(f.node(), v.name(), f.title());
            assertEquals(f.phase(), s.mode().get(), f.title());
            assertEquals(s.selected().get(), s.currentVertex(), "the producer is the current step: " + f.title());
            int line = 1 + List.of(f.program().split("\n")).indexOf(f.program().lines()
                    .filter(l -> l.startsWith(f.node() + " = ")).findFirst().orElseThrow());
            assertEquals(line, d.jump().get().line(), f.title());
            assertFalse(d.jump().get().why().isBlank());
            assertTrue(vm.status().get().contains(d.jump().get().why()), vm.status().get());
            // The producer is marked apart from the nodes that only pass it on.
            assertEquals(DiagnosticsViewModel.Mark.PRODUCER, d.mark(v.index()));
            assertEquals(DiagnosticsViewModel.markPaint(DiagnosticsViewModel.Mark.PRODUCER), d.node("v" + v.index()));
            long propagators = s.recorded().get().graph().vertices().stream()
                    .filter(x -> d.mark(x.index()) == DiagnosticsViewModel.Mark.PROPAGATOR).count();
            assertTrue(propagators > 0, "something passes it on: " + f.title());
        }
    }

    @Test
    void anAbsorbedInfinityIsSaidAsSuchNotAsAnAlarm() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("mask.grad", "s = param(2, 3)\nx = input(2, 3)\nneg = -1 / (0 * (x * x))\nL = sum(s + exp(neg))\n");
        DiagnosticsViewModel d = vm.diagnostics();
        assertTrue(d.finite().get().absorbed());
        assertTrue(d.jumpToOrigin(), "the origin can still be visited");
        int neg = vm.sweep().selected().get();
        assertEquals("neg", vm.sweep().vertex(neg).name());
        assertEquals(DiagnosticsViewModel.ABSORBED_PAINT.get(DiagnosticsViewModel.Mark.PRODUCER), d.node("v" + neg),
                "drawn in the note's blue, not the alarm's red");
        assertEquals(null, d.harm(), "the objective and the gradients are finite");
        vm.openText("nan.grad", "a = param(4, init=\"ones\")\nb = a - 3\nc = log(b)\nL = sum(c)\n");
        assertFalse(d.finite().get().absorbed());
        assertEquals("the objective is NaN", d.harm());
    }

    @Test
    void aFiniteRunHasNoOriginAndHealthCountsEveryValue() {
        SessionViewModel vm = SessionViewModelTest.session();
        DiagnosticsViewModel d = vm.diagnostics();
        assertFalse(d.finite().get().anyBad());
        assertFalse(d.jumpToOrigin());
        assertEquals("Every value and gradient is finite", vm.status().get());
        SweepViewModel s = vm.sweep();
        int y = s.recorded().get().find("Y");
        var h = d.valueHealth(y);
        assertEquals(8, h.negative() + h.zero() + h.positive());
        // Forward: the gradient the backward pass recorded; backward: as of the cursor.
        s.setMode(Sweep.Mode.FORWARD);
        assertNotNull(d.gradient(y));
        s.setMode(Sweep.Mode.BACKWARD);
        assertNull(d.gradient(y), "not reached yet");
        s.toEnd();
        assertNotNull(d.gradient(y));
    }

    /** x² with a planted mistake in its VJP (g ⊙ x instead of 2·g ⊙ x), as the engine's NodeCheckTest plants it. */
    static final class WrongSquare extends Op {
        @Override
        public String name() {
            return "mul";
        }

        @Override
        public String label() {
            return "wrong_square";
        }

        @Override
        public String rule() {
            return "dx = g ⊙ x";
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            return shapes[0].clone();
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            return Ops.mul(in[0], in[0]);
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.mul(g, ctx.input(0))};
        }
    }

    @Test
    void checkGradientsTurnsExactlyThePlantedWrongVjpRed() {
        Tensor x = Tensor.of(new double[] {0.3, -1.2, 0.8, 2.0}, 2, 2).setRequiresGrad(true);
        Trace trace;
        Gradients grads;
        Tensor loss;
        try (Recorder rec = Recorder.start()) {
            Recorder.emit(TraceEvent.Leaf.of("x", TraceEvent.LeafKind.PARAM, x));
            Tensor h = Ops.tanh(x);
            Tensor wrong = Ops.apply(new WrongSquare(), h);
            loss = Ops.sum(Ops.mul(wrong, h));
            Recorder.emit(new TraceEvent.Objective(Recorder.idOf(loss)));
            grads = Backward.run(loss);
            trace = rec.trace();
        }
        ProgramRun run = new ProgramRun(loss, Map.of(), List.of(), grads, List.of(), trace);
        TraceGraph g = TraceGraph.of(trace);
        SweepViewModel sweep = new SweepViewModel(RunService.direct(), s -> { });
        List<String> said = new ArrayList<>();
        DiagnosticsViewModel d = new DiagnosticsViewModel(sweep, RunService.direct(), said::add, () -> null);
        sweep.show(run, g, GraphLayout.layout(g, Set.of()));
        d.checkGradients();
        assertEquals(4, d.checked(), "tanh, wrong_square, mul, sum");
        for (TraceGraph.Vertex v : g.vertices()) {
            boolean planted = v.op().equals("wrong_square");
            if (v.kind() == TraceGraph.Kind.PARAM || !v.requiresGrad()) {
                // The leaf, and the mul inside wrong_square's own forward (recorded, but no node of its own).
                assertNull(d.check(v.index()));
                continue;
            }
            assertEquals(!planted, d.check(v.index()).ok(), v.op());
            assertEquals(planted ? DiagnosticsViewModel.Mark.CHECK_FAILED : DiagnosticsViewModel.Mark.NONE, d.mark(v.index()), v.op());
        }
        assertEquals("Gradient check: 3 of 4 nodes pass; the failing ones are red", said.get(said.size() - 1));
    }

    @Test
    void float32AgainstFloat64ColoursTheGraphByDifference() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.open(Path.of("../assets/examples/mlp.grad"));
        DiagnosticsViewModel d = vm.diagnostics();
        d.compareDTypes();
        ComparisonViewModel.Comparison c = d.comparison().get();
        assertNotNull(c);
        assertFalse(c.currentIsA(), "the run on screen is float64, the reference");
        assertEquals("float32", c.otherLabel());
        assertEquals(OverlayViewModel.Overlay.DIFFERENCE, d.overlay().get());
        SweepViewModel s = vm.sweep();
        int logits = s.recorded().get().find("logits");
        int x = s.recorded().get().find("x");
        RunDiff.Row row = d.difference(logits);
        assertEquals("logits", row.title());
        assertEquals("logits", c.otherGraph().vertex(c.otherVertex(row)).title());
        assertTrue(d.level(logits) > d.level(x), "computed values differ more than the inputs");
        assertTrue(d.node("v" + logits).fill().startsWith("#"), String.valueOf(d.node("v" + logits)));
        assertNotNull(d.scale());
        assertTrue(d.scale().lo() <= Math.log10(Math.ulp(1f)), "the scale starts at float32's rounding or below: " + d.scale().lo());
        assertEquals(0, d.scale().hi(), 1e-12, "and ends at 100%");
        assertTrue(d.level(logits) < 0.5, "float32's rounding on the logits is not an alarm: " + d.level(logits));
        d.clearComparison();
        assertNull(d.comparison().get());
        assertEquals(OverlayViewModel.Overlay.NONE, d.overlay().get());
        assertNull(d.node("v" + logits));
    }

    @Test
    void anEditComparedWithThePreviousRunIsPairedByName() {
        SessionViewModel vm = SessionViewModelTest.session();
        DiagnosticsViewModel d = vm.diagnostics();
        vm.edit(SessionViewModelTest.CHAIN.replace("relu(Y)", "relu(Y * 2)"));
        vm.run();
        d.compareWithPrevious();
        ComparisonViewModel.Comparison c = d.comparison().get();
        assertNotNull(c);
        int h = vm.sweep().recorded().get().find("h");
        assertTrue(d.difference(h).valueDiff() > 0.5, "h doubled");
        assertEquals(0, d.difference(vm.sweep().recorded().get().find("W")).valueDiff());
    }

    @Test
    void theGradientNormOverlayShowsWhereGradientsVanish() {
        // A deep chain of saturated tanh: the gradient shrinks towards the input.
        StringBuilder p = new StringBuilder("x = param(4, init=\"ones\")\nh0 = x * 3\n");
        for (int i = 1; i <= 6; i++) {
            p.append("h").append(i).append(" = tanh(h").append(i - 1).append(" * 3)\n");
        }
        p.append("L = sum(h6)\n");
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("deep.grad", p.toString());
        DiagnosticsViewModel d = vm.diagnostics();
        d.setOverlay(OverlayViewModel.Overlay.GRADIENT_NORM);
        SweepViewModel s = vm.sweep();
        Sweep sw = s.recorded().get();
        double previous = Double.POSITIVE_INFINITY;
        for (int i = 6; i >= 1; i--) {
            int v = sw.find("h" + i);
            double[] g = sw.upstream(sw.steps(Sweep.Mode.BACKWARD) - 1, v).toDoubleArray();
            double norm = 0;
            for (double e : g) {
                norm += e * e;
            }
            assertEquals(Math.log10(Math.sqrt(norm)), d.logNorm(v), 1e-12, "h" + i);
            assertTrue(d.level(v) <= previous, "vanishing towards the input at h" + i);
            previous = d.level(v);
            assertTrue(d.node("v" + v).fill().startsWith("#"), String.valueOf(d.node("v" + v)));
        }
        assertTrue(d.level(sw.find("h6")) > d.level(sw.find("h1")) + 0.5, "spans the scale");
        assertTrue(d.scale().title().contains("gradient"));
        // Setting the difference overlay without a comparison is refused, saying why.
        d.setOverlay(OverlayViewModel.Overlay.DIFFERENCE);
        assertEquals(OverlayViewModel.Overlay.GRADIENT_NORM, d.overlay().get());
        assertTrue(vm.status().get().startsWith("Compare two runs first"), vm.status().get());
    }
}
