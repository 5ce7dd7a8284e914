package io.gradscope.engine.autograd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import org.junit.jupiter.api.Test;

class GraphTest {

    @Test
    void nodesComeInTopologicalOrderWithOneEdgePerInputUse() {
        Tensor x = Tensor.of(new double[] {1, 2, 3, 4}, 2, 2);
        Tensor w = Tensor.of(new double[] {1, 0, 0, 1}, 2, 2).setRequiresGrad(true);
        final Tensor[] h = new Tensor[1];
        Node.inGroup("hidden", () -> h[0] = Ops.relu(Ops.matmul(x, w)));
        Tensor loss = Ops.sum(Ops.mul(h[0], h[0]));
        Graph g = Graph.of(loss);
        assertEquals(List.of("leaf", "matmul", "relu", "mul", "sum"), g.nodes().stream().map(Node::opName).toList());
        // matmul <- w, relu <- matmul, mul <- relu twice (fan-out), sum <- mul; x is a constant.
        assertEquals(5, g.edges().size());
        long fanOut = g.edges().stream().filter(e -> e.to().opName().equals("mul")).count();
        assertEquals(2, fanOut);
        for (Graph.Edge e : g.edges()) {
            assertTrue(e.from().id() < e.to().id(), "inputs are created before their consumers");
        }
        assertEquals(List.of("hidden"), g.nodes().get(1).groups());
        assertEquals(List.of(), g.nodes().get(3).groups());
        assertEquals(g.nodes().size(), Backward.start(loss).totalSteps(), "the sweep visits every node");
    }
}
