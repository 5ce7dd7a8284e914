package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.Trace;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.AbstractList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Stepping costs O(1) however large the graph: the sweep is built in one pass over the trace, and
 * one step changes the looks of at most two drawn nodes and their input edges.
 */
class GraphStatesTest {

    /** A residual chain: per block a weight, a matmul, a tanh, a mul and an add (fan-out on every block input). */
    static ProgramRun chain(int blocks) {
        StringBuilder sb = new StringBuilder("x = input(2, 4)\n");
        String prev = "x";
        for (int i = 0; i < blocks; i++) {
            sb.append("w").append(i).append(" = param(4, 4)\n");
            sb.append("a").append(i).append(" = tanh(").append(prev).append(" @ w").append(i).append(")\n");
            sb.append("b").append(i).append(" = a").append(i).append(" * ").append(prev).append(" + a").append(i).append("\n");
            prev = "b" + i;
        }
        sb.append("loss = sum(").append(prev).append(")\n");
        return Program.parse("chain.grad", sb.toString()).run(new RunOptions(DType.FLOAT32, 0, Map.of()));
    }

    @Test
    void theSweepIsBuiltInOnePassOverTheTrace() {
        ProgramRun run = chain(400);
        List<TraceEvent> events = run.trace().events();
        int[] reads = new int[1];
        Trace counted = new Trace(new AbstractList<>() {
            @Override
            public TraceEvent get(int i) {
                reads[0]++;
                return events.get(i);
            }

            @Override
            public int size() {
                return events.size();
            }
        });
        ProgramRun same = new ProgramRun(run.objective(), run.values(), run.leaves(), run.gradients(), run.checkpointSegments(), counted);
        TraceGraph graph = TraceGraph.of(counted);
        Sweep sweep = new Sweep(same, graph);
        assertEquals(2L * events.size(), reads[0], "the graph reads each event once, the sweep its backward steps once");
        assertEquals(run.trace().of(TraceEvent.BackwardStep.class).size(), sweep.steps(Sweep.Mode.BACKWARD));
    }

    @Test
    void oneStepChangesAtMostTwoNodesAndTheirEdgesHoweverLargeTheGraph() {
        ProgramRun run = chain(2000);
        TraceGraph graph = TraceGraph.of(run.trace());
        assertTrue(graph.size() > 10_000, "vertices: " + graph.size());
        Sweep sweep = new Sweep(run, graph);
        for (Sweep.Mode mode : Sweep.Mode.values()) {
            GraphStates states = new GraphStates(sweep, mode, Set.of(), -1);
            int steps = sweep.steps(mode);
            long touched = 0;
            for (int c = 0; c < steps; c++) {
                GraphStates.Change change = states.moveTo(c);
                // The step before goes from current to visited, this one from pending to current.
                assertTrue(change.keys().size() <= 2, mode + " step " + c + ": " + change.keys());
                // Their input edges (two inputs each), and the lit edges before and after.
                assertTrue(change.edges().size() <= 8, mode + " step " + c + ": " + change.edges().size() + " edges");
                touched += change.keys().size() + change.edges().size();
                if (c % 997 == 0) {
                    assertSameLooks(new GraphStates(sweep, mode, Set.of(), c), states, graph);
                }
            }
            assertTrue(touched <= 10L * steps, "a whole sweep touches O(steps): " + touched);
            // Stepping back is as cheap, and a jump touches only the steps in between.
            assertTrue(states.moveTo(steps - 2).keys().size() <= 2);
            assertEquals(11, states.moveTo(steps - 12).keys().size());
            assertSameLooks(new GraphStates(sweep, mode, Set.of(), steps - 12), states, graph);
        }
    }

    private static void assertSameLooks(GraphStates fresh, GraphStates kept, TraceGraph graph) {
        for (TraceGraph.Vertex v : graph.vertices()) {
            assertEquals(fresh.state("v" + v.index()), kept.state("v" + v.index()), "v" + v.index());
        }
        for (TraceGraph.Edge e : graph.edges()) {
            assertEquals(fresh.look(e), kept.look(e), e.toString());
        }
    }

    @Test
    void eachCommandSetsTheInspectorsSubjectOnceAndTheLooksAtMostOnce() {
        SessionViewModel session = new SessionViewModel(RunService.direct());
        session.openText("chain.grad", SessionViewModelTest.CHAIN);
        SweepViewModel vm = session.sweep();
        int[] inspections = new int[1];
        int[] looks = new int[1];
        vm.inspection().addListener((o, a, b) -> inspections[0]++);
        vm.graphChange().addListener((o, a, b) -> looks[0]++);
        List<Runnable> commands = List.of(vm::stepForward, vm::stepForward, vm::stepBack, vm::toEnd, vm::toStart,
                () -> vm.select(1), () -> vm.jumpTo(2), () -> vm.select(1), () -> vm.select(-1), () -> vm.setMode(Sweep.Mode.FORWARD), vm::stepForward);
        for (Runnable command : commands) {
            inspections[0] = 0;
            looks[0] = 0;
            command.run();
            assertEquals(1, inspections[0], "the inspector refreshes once per command");
            assertEquals(1, looks[0], "the graph restyles once per command: " + commands.indexOf(command));
        }
    }
}
