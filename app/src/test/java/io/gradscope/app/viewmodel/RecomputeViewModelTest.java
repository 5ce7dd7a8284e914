package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.recompute.RematPlanner;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Recomputation in the sweep and on the graph, the trade-off curve and the compared run, checked
 * against the trace's own events, the engine's planner and a second run made here.
 */
class RecomputeViewModelTest {
    private static final Path PROGRAM = Path.of("../assets/examples/residual_checkpoint.grad");

    private static String source() throws IOException {
        return Files.readString(PROGRAM);
    }

    @Test
    void theBackwardStepsAreTheTracesBackwardAndRecomputeEventsInTraceOrder() throws IOException {
        SessionViewModel s = MemoryViewModelTest.session();
        Sweep sweep = s.sweep().recorded().get();
        List<TraceEvent> events = sweep.run().trace().events();
        List<TraceEvent> expected = new ArrayList<>();
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof TraceEvent.BackwardStep || events.get(i) instanceof TraceEvent.Recompute) {
                expected.add(events.get(i));
                at.add(i);
            }
        }
        long recomputes = expected.stream().filter(e -> e instanceof TraceEvent.Recompute).count();
        assertTrue(recomputes > 0, "the program's checkpoint blocks are recomputed");
        assertEquals(sweep.run().memory().recomputedOps(), recomputes, "one Recompute event per recomputed op");
        assertEquals(expected.size(), sweep.steps(Sweep.Mode.BACKWARD));
        for (int i = 0; i < expected.size(); i++) {
            TraceEvent e = expected.get(i);
            if (e instanceof TraceEvent.Recompute r) {
                assertSame(r, sweep.recomputeAt(i), "step " + i);
                assertNull(sweep.backwardStep(i));
                assertTrue(sweep.contributions(i).isEmpty(), "a recompute step sends nothing");
                assertEquals(sweep.graph().indexOf(r.node()), sweep.vertexAt(Sweep.Mode.BACKWARD, i));
                assertEquals("recomputing " + r.op() + " (segment " + (r.segment() + 1) + ")", sweep.recomputing(i));
            } else {
                TraceEvent.BackwardStep b = (TraceEvent.BackwardStep) e;
                assertSame(b, sweep.backwardStep(i), "step " + i);
                assertNull(sweep.recomputing(i));
                assertEquals(i, sweep.backwardStepOf(sweep.graph().indexOf(b.node())));
            }
        }
        // The memory cursor sits on each step's own event; the recomputed vertex is current at its recompute step.
        for (int i = 0; i < expected.size(); i++) {
            s.sweep().jumpTo(i);
            assertEquals(at.get(i), s.memory().cursorEvent().get(), "step " + i);
            int v = sweep.vertexAt(Sweep.Mode.BACKWARD, i);
            if (v >= 0) {
                assertEquals(Sweep.State.CURRENT, sweep.state(Sweep.Mode.BACKWARD, i, v));
            }
        }
    }

    @Test
    void stepByStepLooksEqualLooksBuiltAfreshAcrossRecomputeSteps() throws IOException {
        SessionViewModel s = MemoryViewModelTest.session();
        Sweep sweep = s.sweep().recorded().get();
        GraphStates moving = new GraphStates(sweep, Sweep.Mode.BACKWARD, Set.of(), -1);
        int steps = sweep.steps(Sweep.Mode.BACKWARD);
        // Forward one by one, then jumps back and forth.
        List<Integer> path = new ArrayList<>();
        for (int c = 0; c < steps; c++) {
            path.add(c);
        }
        path.addAll(List.of(2, steps - 1, 0, steps / 2, -1, steps / 3));
        for (int c : path) {
            moving.moveTo(c);
            GraphStates fresh = new GraphStates(sweep, Sweep.Mode.BACKWARD, Set.of(), c);
            for (int v = 0; v < sweep.graph().size(); v++) {
                String key = fresh.keyOf(v);
                assertEquals(fresh.state(key), moving.state(key), "vertex " + v + " at step " + c);
            }
        }
    }

    @Test
    void theMarksAreExactlyTheNodesThePlanRecomputes() throws IOException {
        SessionViewModel s = MemoryViewModelTest.session();
        for (RematPolicy p : List.of(RematPolicy.SEGMENTS, RematPolicy.SQRT, RematPolicy.NONE)) {
            s.memory().choosePolicy(p);
            Sweep sweep = s.sweep().recorded().get();
            // The plan's dropped ops, by their vertices: what may be recomputed.
            Set<Integer> dropped = new TreeSet<>();
            var mem = sweep.run().memory();
            for (var op : mem.profile().ops()) {
                if (mem.plan().dropped(op.index())) {
                    dropped.add(sweep.graph().indexOf(op.node()));
                }
            }
            // Independently: the vertices whose ops the engine re-ran in the backward pass.
            Set<Integer> rerun = new TreeSet<>();
            for (TraceEvent.Recompute r : sweep.run().trace().of(TraceEvent.Recompute.class)) {
                rerun.add(sweep.graph().indexOf(r.node()));
            }
            Set<Integer> marked = new TreeSet<>();
            for (int v : s.memory().recomputed().vertices()) {
                marked.add(v);
            }
            assertEquals(rerun, marked, p.toString());
            assertTrue(dropped.containsAll(marked), p + ": only dropped values are recomputed");
            if (p == RematPolicy.SEGMENTS) {
                assertEquals(dropped, marked, "every value of the checkpoint blocks is recomputed");
            }
            assertEquals(p != RematPolicy.NONE, !marked.isEmpty(), p.toString());
            for (int v = 0; v < sweep.graph().size(); v++) {
                assertEquals(marked.contains(v), s.memory().recomputed().node("v" + v) != null, p + " v" + v);
            }
        }
    }

    @Test
    void theCurvesPointsAreWhatThePlannerPredictsPerBudget() throws IOException {
        SessionViewModel s = MemoryViewModelTest.session();
        MemoryViewModel m = s.memory();
        m.showTradeOff(true);
        TradeOff t = m.tradeOff().get();
        assertNotNull(t, "planned (the direct service runs at once)");
        assertEquals(MemoryViewModel.BUDGETS, t.curve().size());
        Program program = Program.parse("residual.grad", source());
        RunOptions options = new RunOptions(DType.FLOAT64, 0, Map.of());
        long plain = program.plan(options, RematPolicy.NONE, true).predictedPeak();
        assertEquals(plain, t.curve().get(0).policy().budget(), "the largest budget is the plain peak");
        long lowest = program.plan(options, RematPolicy.budget(1), true).predictedPeak();
        assertEquals(lowest, t.curve().get(t.curve().size() - 1).policy().budget(), "the smallest is the lowest peak reachable");
        long lastBudget = Long.MAX_VALUE;
        for (TradeOff.Point p : t.curve()) {
            assertTrue(p.policy().budget() < lastBudget, "budgets fall");
            lastBudget = p.policy().budget();
            RematPlanner.Planned planned = program.plan(options, p.policy(), true);
            assertEquals(planned.predictedPeak(), p.peak(), p.label());
            assertEquals(planned.fits(), p.fits(), p.label());
            assertTrue(p.ops() <= planned.plan().droppedCount(), p.label() + ": only dropped ops are run again");
            if (p.fits()) {
                assertTrue(p.peak() <= p.policy().budget(), p.label());
            }
        }
        assertTrue(t.curve().get(t.curve().size() - 1).peak() < plain, "a small budget lowers the peak");
        // The extra compute of a point is what a real step under its plan recomputes, and its peak what it measures.
        List<TradeOff.Point> checked = new ArrayList<>(t.named());
        checked.add(t.curve().get(t.curve().size() / 2));
        checked.add(t.curve().get(t.curve().size() - 1));
        for (TradeOff.Point p : checked) {
            ProgramRun run = program.run(options, new MemoryOptions(p.policy(), false), (a, b, c) -> { });
            assertEquals(run.memory().recomputedFlops(), p.flops(), p.label());
            assertEquals(run.memory().recomputedOps(), p.ops(), p.label());
            assertEquals(run.timeline().peakBytes(), p.peak(), p.label() + ": predicted equals measured on the CPU");
        }
        assertEquals(RematPolicy.SEGMENTS, t.current().policy(), "the run's own policy is the current choice");
        // A new run plans again while the curve is shown.
        m.choosePolicy(RematPolicy.SQRT);
        assertEquals(RematPolicy.SQRT, m.tradeOff().get().current().policy());
    }

    @Test
    void theComparedRunIsASecondRunOnThisRunsAxis() throws IOException {
        SessionViewModel s = MemoryViewModelTest.session();
        MemoryViewModel m = s.memory();
        m.compareWith(RematPolicy.NONE);
        MemoryOverlay o = m.overlay().get();
        assertNotNull(o);
        Program program = Program.parse("residual.grad", source());
        ProgramRun plain = program.run(new RunOptions(DType.FLOAT64, 0, Map.of()), new MemoryOptions(RematPolicy.NONE, false),
                (a, b, c) -> { });
        assertEquals(plain.timeline().peakBytes(), o.peak());
        long[] bytes = plain.timeline().samples().stream().mapToLong(x -> x.program()).toArray();
        assertArrayEquals(bytes, o.bytes());
        // Backward step k of the compared run sits on backward step k of this one.
        List<TraceEvent> here = s.sweep().recorded().get().run().trace().events();
        List<Integer> hereSteps = new ArrayList<>();
        for (int i = 0; i < here.size(); i++) {
            if (here.get(i) instanceof TraceEvent.BackwardStep) {
                hereSteps.add(i);
            }
        }
        double[] axis = MemoryOverlay.axis(plain.trace(), s.sweep().recorded().get().run().trace());
        int k = 0;
        for (int i = 0; i < plain.trace().events().size(); i++) {
            if (plain.trace().events().get(i) instanceof TraceEvent.BackwardStep) {
                assertEquals(hereSteps.get(k++), axis[i], 0, "backward step " + k);
            }
            assertTrue(i == 0 || axis[i] >= axis[i - 1], "the axis never goes back");
        }
        assertEquals(hereSteps.size(), k);
        m.compareWith(null);
        assertNull(m.overlay().get());
    }
}
