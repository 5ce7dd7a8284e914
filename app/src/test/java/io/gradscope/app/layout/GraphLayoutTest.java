package io.gradscope.app.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceGraph;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GraphLayoutTest {
    static final String SRC = "x = input(4, 3)\nW = param(3, 2)\nwith group(\"layer\"):\n    y = x @ W\n    h = relu(y)\nloss = sum(h)\n";

    static TraceGraph graph() {
        return TraceGraph.of(Program.parse("t.grad", SRC).run(new RunOptions(DType.FLOAT32, 0, Map.of())).trace());
    }

    private static boolean overlap(GraphLayout.Box a, GraphLayout.Box b) {
        return a.x() < b.x() + b.w() && b.x() < a.x() + a.w() && a.y() < b.y() + b.h() && b.y() < a.y() + a.h();
    }

    @Test
    void inputsAreAboveTheirConsumersAndNodesDoNotOverlap() {
        GraphLayout.Result r = GraphLayout.layout(graph(), Set.of());
        assertEquals(5, r.nodes().size());
        for (GraphLayout.DisplayEdge e : r.edges()) {
            GraphLayout.Box a = r.nodes().get(e.from()).box();
            GraphLayout.Box b = r.nodes().get(e.to()).box();
            assertTrue(a.y() + a.h() <= b.y(), e + ": the input is above its consumer");
            assertTrue(e.points().size() >= 2, "routed");
        }
        var list = r.nodes().values().stream().toList();
        for (int i = 0; i < list.size(); i++) {
            for (int j = i + 1; j < list.size(); j++) {
                assertTrue(!overlap(list.get(i).box(), list.get(j).box()), list.get(i) + " overlaps " + list.get(j));
            }
        }
        // The group box encloses its members.
        assertEquals(1, r.groups().size());
        GraphLayout.Box g = r.groups().get(0).box();
        for (String k : new String[] {"v2", "v3"}) {
            GraphLayout.Box b = r.nodes().get(k).box();
            assertTrue(b.x() >= g.x() && b.y() >= g.y() && b.x() + b.w() <= g.x() + g.w() && b.y() + b.h() <= g.y() + g.h(),
                    k + " inside the group box");
        }
    }

    @Test
    void aWeightSharedByManyLayersKeepsTheLayoutFastAndItsEdgesDrawn() {
        StringBuilder src = new StringBuilder("x = param(2, 4)\nw = param(4, 4)\n");
        String prev = "x";
        for (int i = 0; i < 300; i++) {
            src.append("h").append(i).append(" = tanh(").append(prev).append(" @ w)\n");
            prev = "h" + i;
        }
        src.append("loss = sum(").append(prev).append(")\n");
        TraceGraph g = TraceGraph.of(Program.parse("tied.grad", src.toString()).run(new RunOptions(DType.FLOAT32, 0, Map.of())).trace());
        GraphLayout.Result r = GraphLayout.layout(g, Set.of());
        assertEquals(g.edges().size(), r.edges().size(), "every edge is drawn");
        var fromW = r.edges().stream().filter(e -> e.from().equals("v1")).toList();
        assertEquals(300, fromW.size());
        for (GraphLayout.DisplayEdge e : fromW) {
            // Drawn straight, from the bottom of w to the top of its consumer.
            assertEquals(2, e.points().size());
            assertEquals(r.nodes().get("v1").box().y() + r.nodes().get("v1").box().h(), e.points().get(0)[1], 1e-9);
            assertEquals(r.nodes().get(e.to()).box().y(), e.points().get(1)[1], 1e-9);
        }
    }

    @Test
    void aCollapsedGroupIsOneNodeWithTheEdgesThatCrossIt() {
        GraphLayout.Result r = GraphLayout.layout(graph(), Set.of("layer"));
        assertEquals(4, r.nodes().size(), "x, W, the group, loss");
        assertTrue(r.nodes().containsKey("g:layer"));
        assertEquals(0, r.groups().size());
        assertEquals(3, r.edges().size(), "x->layer, W->layer, layer->loss");
    }
}
