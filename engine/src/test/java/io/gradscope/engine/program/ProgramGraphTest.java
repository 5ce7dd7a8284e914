package io.gradscope.engine.program;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.TensorStats;
import io.gradscope.engine.trace.TraceEvent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProgramGraphTest {

    @Test
    void everyLeafAndOpIsAVertexWithItsNameKindAndGroup() {
        String src = "X = input(4, 3)\nW = param(3, 2)\nwith group(\"layer\"):\n    Y = X @ W\n    h = relu(Y)\nloss = sum(h * 2)\n";
        ProgramRun run = Program.parse("p.grad", src).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        ProgramGraph g = run.programGraph();
        assertEquals(List.of("X", "W", "Y", "h", "mul", "loss"), g.vertices().stream().map(ProgramGraph.Vertex::title).toList());
        assertEquals(List.of(ProgramGraph.Kind.INPUT, ProgramGraph.Kind.PARAM, ProgramGraph.Kind.OP, ProgramGraph.Kind.OP,
                ProgramGraph.Kind.OP, ProgramGraph.Kind.OBJECTIVE), g.vertices().stream().map(ProgramGraph.Vertex::kind).toList());
        assertEquals(List.of("layer"), g.vertices().get(2).groups());
        assertEquals(List.of(), g.vertices().get(5).groups());
        assertNull(g.vertices().get(0).node(), "an input without grad=True has no autograd node");
        assertNotNull(g.vertices().get(1).node());
        // X->Y, W->Y, Y->h, h->mul, mul->loss (the literal 2 is folded into its op)
        assertEquals(5, g.edges().size());
        assertEquals("dX = G·Wᵀ, dW = Xᵀ·G", g.vertices().get(2).rule());
        assertEquals(4, g.vertices().get(2).line());
        // Every backward step maps to a vertex.
        for (TraceEvent.BackwardStep s : run.trace().of(TraceEvent.BackwardStep.class)) {
            assertNotNull(g.byNodeId(s.node()), "step for node " + s.node());
        }
        assertEquals(5, run.trace().of(TraceEvent.BackwardStep.class).size(), "W, Y, h, mul, loss");
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
