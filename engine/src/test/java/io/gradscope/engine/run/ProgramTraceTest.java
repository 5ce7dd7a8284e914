package io.gradscope.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.TensorStats;
import io.gradscope.engine.trace.Source;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A program's trace: leaves, ops, names, groups and positions, and the graph read from it. */
class ProgramTraceTest {

    @Test
    void everyLeafAndOpIsAVertexWithItsNameKindAndGroup() {
        String src = "X = input(4, 3)\nW = param(3, 2)\nwith group(\"layer\"):\n    Y = X @ W\n    h = relu(Y)\nloss = sum(h * 2)\n";
        ProgramRun run = Program.parse("p.grad", src).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        TraceGraph g = TraceGraph.of(run.trace());
        assertEquals(List.of("X", "W", "Y", "h", "mul", "loss"), g.vertices().stream().map(TraceGraph.Vertex::title).toList());
        assertEquals(List.of(TraceGraph.Kind.INPUT, TraceGraph.Kind.PARAM, TraceGraph.Kind.OP, TraceGraph.Kind.OP,
                TraceGraph.Kind.OP, TraceGraph.Kind.OBJECTIVE), g.vertices().stream().map(TraceGraph.Vertex::kind).toList());
        assertEquals(List.of("layer"), g.vertex(2).groups());
        assertEquals(List.of(), g.vertex(5).groups());
        assertNull(run.values().get("X").node(), "an input without grad=True has no autograd node");
        assertFalse(g.vertex(0).requiresGrad());
        assertTrue(g.vertex(1).requiresGrad());
        assertEquals(run.values().get("W").node().id(), g.vertex(1).id(), "a value with a node is known by the node's id");
        // X->Y, W->Y, Y->h, h->mul, mul->loss (the literal 2 is folded into its op)
        assertEquals(5, g.edges().size());
        assertEquals(List.of(new TraceGraph.Edge(0, 2, 0), new TraceGraph.Edge(1, 2, 1)), g.inEdges(2));
        assertEquals(List.of(new TraceGraph.Edge(3, 4, 0)), g.inEdges(4), "mul's second input is the constant 2");
        assertEquals(-1, g.inputOf(4, 1));
        assertEquals("dX = G·Wᵀ, dW = Xᵀ·G", g.vertex(2).rule());
        assertEquals(4, g.vertex(2).line());
        assertEquals(11, g.vertex(2).source().column(), "the column of '@'");
        // Every backward step maps to a vertex.
        for (TraceEvent.BackwardStep s : run.trace().of(TraceEvent.BackwardStep.class)) {
            assertTrue(g.indexOf(s.node()) >= 0, "step for node " + s.node());
        }
        assertEquals(5, run.trace().of(TraceEvent.BackwardStep.class).size(), "W, Y, h, mul, loss");
    }

    @Test
    void theTraceSaysWhereEachValueComesFrom() {
        String src = "x = input(3)\nw = param(3)\nwith checkpoint():\n    a = tanh(x * w)\n    with group(\"g\"):\n"
                + "        b = a * a\nwith checkpoint():\n    c = exp(b)\nloss = sum(c)\n";
        ProgramRun run = Program.parse("p.grad", src).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        List<TraceEvent.Leaf> leaves = run.trace().of(TraceEvent.Leaf.class);
        assertEquals(List.of("x", "w"), leaves.stream().map(TraceEvent.Leaf::name).toList());
        assertEquals(List.of(TraceEvent.LeafKind.INPUT, TraceEvent.LeafKind.PARAM), leaves.stream().map(TraceEvent.Leaf::kind).toList());
        assertEquals(new Source(2, 5, List.of(), -1), leaves.get(1).source());
        List<TraceEvent.OpForward> ops = run.trace().of(TraceEvent.OpForward.class);
        assertEquals(List.of("mul", "tanh", "mul", "exp", "sum"), ops.stream().map(TraceEvent.OpForward::op).toList());
        assertEquals(List.of(0, 0, 0, 1, -1), ops.stream().map(o -> o.source().segment()).toList());
        assertEquals(List.of("g"), ops.get(2).source().groups());
        assertEquals(List.of(), ops.get(3).source().groups());
        assertFalse(ops.get(1).rule().isEmpty());
        assertEquals(List.of("a", "b", "c", "loss"), run.trace().of(TraceEvent.Named.class).stream().map(TraceEvent.Named::name).toList());
        assertEquals(ops.get(4).node(), run.trace().of(TraceEvent.Objective.class).get(0).node());
        assertEquals(List.of(List.of("a", "b"), List.of("c")), run.checkpointSegments());
        assertEquals(Source.NONE, io.gradscope.engine.trace.Recorder.source(), "the context is cleared after a run");
    }

    @Test
    void progressCountsStatementsThenBackwardSteps() {
        String src = "x = input(2)\nW = param(2)\nwith group(\"g\"):\n    y = x * W\nloss = sum(y)\n";
        java.util.List<String> seen = new java.util.ArrayList<>();
        Program.parse("p.grad", src).run(new RunOptions(DType.FLOAT64, 0, Map.of()),
                (phase, done, total) -> seen.add(phase + " " + done + "/" + total));
        assertEquals(List.of("forward 1/4", "forward 2/4", "forward 3/4", "forward 4/4",
                "backward 1/3", "backward 2/3", "backward 3/3"), seen);
    }

    @Test
    void statisticsCountNonFiniteValuesApart() {
        TensorStats s = TensorStats.of(new double[] {1, -3, Double.NaN, Double.POSITIVE_INFINITY, 2, Double.NEGATIVE_INFINITY,
            Double.NEGATIVE_INFINITY});
        assertEquals(7, s.count());
        assertEquals(-3, s.min());
        assertEquals(2, s.max());
        assertEquals(0, s.mean());
        assertEquals(1, s.nan());
        assertEquals(1, s.posInf());
        assertEquals(2, s.negInf());
        TensorStats f = TensorStats.of(new double[] {3, 4});
        assertEquals(5, f.l2());
        assertTrue(Double.isNaN(TensorStats.of(new double[0]).mean()));
    }
}
