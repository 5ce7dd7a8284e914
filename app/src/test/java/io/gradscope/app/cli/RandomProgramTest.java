package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.layout.Hierarchy;
import io.gradscope.app.layout.Programs;
import io.gradscope.engine.trace.TraceGraph;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The random programs the open path is measured on: seeded, about the size asked, grouped, nothing folded. */
class RandomProgramTest {

    @Test
    void aSeedGivesOneProgramThatRunsWithGroupsResidualAddsAndNothingRepeating() {
        String text = RandomProgram.of(2000, 5);
        assertEquals(text, RandomProgram.of(2000, 5));
        assertNotEquals(text, RandomProgram.of(2000, 6));
        long statements = text.lines().filter(l -> l.contains(" = ")).count();
        assertTrue(statements >= 2000 && statements < 2010, "statements: " + statements);
        TraceGraph g = Programs.graph("random.grad", text);
        // One vertex a statement.
        assertEquals(statements, g.size());
        assertTrue(Double.isFinite(g.vertex(g.size() - 1).value().item()), "the objective is finite");
        Hierarchy h = Hierarchy.of(g);
        assertTrue(h.runs().isEmpty(), "nothing repeats: " + h.runs());
        Set<String> nested = new HashSet<>();
        int adds = 0;
        for (TraceGraph.Vertex v : g.vertices()) {
            if (v.groups().size() >= 2) {
                nested.add(String.join("/", v.groups()));
            }
            // A residual add: an add whose two inputs are both computed values.
            if ("add".equals(v.op()) && g.inEdges(v.index()).stream().allMatch(e -> g.vertex(e.from()).kind() == TraceGraph.Kind.OP)) {
                adds++;
            }
        }
        assertTrue(nested.size() > 10, "nested groups: " + nested.size());
        assertTrue(adds > statements / 20, "residual adds: " + adds);
        Set<String> ops = new HashSet<>();
        g.vertices().forEach(v -> ops.add(v.op()));
        assertTrue(ops.size() > 12, "ops: " + ops);
    }
}
