package io.gradscope.engine.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Tensor;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The graph read from a trace: order, fan-out edges, groups, and a build that reads each event once. */
class TraceGraphTest {

    @Test
    void verticesComeInTopologicalOrderWithOneEdgePerInputUse() {
        Tensor x = Tensor.of(new double[] {1, 2, 3, 4}, 2, 2);
        Tensor w = Tensor.of(new double[] {1, 0, 0, 1}, 2, 2).setRequiresGrad(true);
        Trace trace;
        try (Recorder rec = Recorder.start()) {
            Recorder.emit(TraceEvent.Leaf.of("w", TraceEvent.LeafKind.PARAM, w));
            Recorder.enterGroup("hidden");
            Tensor h = Ops.relu(Ops.matmul(x, w));
            Recorder.exitGroup();
            Tensor loss = Ops.sum(Ops.mul(h, h));
            Backward.run(loss);
            trace = rec.trace();
        }
        TraceGraph g = TraceGraph.of(trace);
        assertEquals(List.of("param", "matmul", "relu", "mul", "sum"), g.vertices().stream().map(TraceGraph.Vertex::op).toList());
        // matmul <- w, relu <- matmul, mul <- relu twice (fan-out), sum <- mul; x is a constant.
        assertEquals(5, g.edges().size());
        assertEquals(2, g.inEdges(3).size());
        for (TraceGraph.Edge e : g.edges()) {
            assertTrue(e.from() < e.to(), "inputs are created before their consumers");
        }
        assertEquals(List.of("hidden"), g.vertex(1).groups());
        assertEquals(List.of(), g.vertex(3).groups());
        assertEquals(w.node().id(), g.vertex(0).id());
        List<TraceEvent.BackwardStep> steps = trace.of(TraceEvent.BackwardStep.class);
        assertEquals(g.size(), steps.size(), "the sweep visits every vertex");
        for (TraceEvent.BackwardStep s : steps) {
            assertTrue(g.indexOf(s.node()) >= 0);
        }
    }

    @Test
    void valuesWithoutANodeGetIdsOfTheirOwnAndKeepTheirEdges() {
        Tensor a = Tensor.of(new double[] {1, 2}, 2);
        Trace trace;
        try (Recorder rec = Recorder.start()) {
            Recorder.emit(TraceEvent.Leaf.of("a", TraceEvent.LeafKind.INPUT, a));
            Tensor b = Ops.exp(a);
            Ops.sum(Ops.mul(b, 3));
            trace = rec.trace();
        }
        TraceGraph g = TraceGraph.of(trace);
        assertEquals(4, g.size());
        assertEquals(List.of(new TraceGraph.Edge(0, 1, 0), new TraceGraph.Edge(1, 2, 0), new TraceGraph.Edge(2, 3, 0)), g.edges());
        assertEquals(4, g.vertices().stream().mapToLong(TraceGraph.Vertex::id).distinct().count(), "ids are distinct");
        assertEquals(-1, Recorder.idOf(a), "ids given while recording end with the recording");
    }

    /** A chain of n ops with its backward steps, as events. */
    static List<TraceEvent> chain(int n) {
        List<TraceEvent> events = new ArrayList<>();
        Tensor t = Tensor.of(new double[] {1}, 1);
        events.add(new TraceEvent.Leaf(1, "x", TraceEvent.LeafKind.PARAM, t, true, Source.NONE));
        for (int i = 2; i <= n; i++) {
            events.add(new TraceEvent.OpForward(i, "exp", "exp", "dx = G·exp(x)", List.of((long) i - 1), List.of(new int[] {1}),
                    new int[] {1}, t, true, Source.NONE));
        }
        for (int i = n; i >= 1; i--) {
            events.add(new TraceEvent.BackwardStep(i, "exp", t, i > 1 ? List.of(new TraceEvent.Contribution(0, i - 1, t)) : List.of()));
        }
        return events;
    }

    @Test
    void theBuildReadsEachEventOnceAndLooksUpByIdDirectly() {
        int n = 20_000;
        List<TraceEvent> events = chain(n);
        int[] reads = new int[1];
        List<TraceEvent> counted = new AbstractList<>() {
            @Override
            public TraceEvent get(int i) {
                reads[0]++;
                return events.get(i);
            }

            @Override
            public int size() {
                return events.size();
            }
        };
        TraceGraph g = TraceGraph.of(new Trace(counted));
        assertEquals(events.size(), reads[0], "one read per event");
        assertEquals(n, g.size());
        assertEquals(n - 1, g.edges().size());
        assertEquals(n - 1, g.indexOf(n));
        assertEquals(List.of(new TraceGraph.Edge(n - 2, n - 1, 0)), g.inEdges(n - 1));
    }
}
