package io.gradscope.app.viewmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.RandomProgram;
import io.gradscope.app.service.RunService;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The Jacobian tab's groups, found for all groups in one pass when a program opens (group by group,
 * a 50,000-statement program with 2,000 groups took minutes to show), are those a group-by-group
 * search finds: here written out again, one pass over the graph per group.
 */
class JacobianGroupsTest {

    @Test
    void theGroupsFoundInOnePassAreThoseFoundGroupByGroup() {
        SessionViewModel vm = new SessionViewModel(RunService.direct());
        vm.openText("random.grad", RandomProgram.of(1500, 21));
        JacobianViewModel j = vm.jacobian();
        TraceGraph g = vm.sweep().recorded().get().graph();
        Set<String> leaves = new HashSet<>(j.leaves());
        Set<Integer> outputs = new HashSet<>();
        j.outputs().forEach(o -> outputs.add(o.vertex()));
        List<String> expected = new ArrayList<>();
        for (String name : g.groupNames()) {
            boolean[] inside = new boolean[g.size()];
            TreeSet<Integer> outs = new TreeSet<>();
            for (TraceGraph.Vertex v : g.vertices()) {
                inside[v.index()] = v.groups().contains(name);
                if (inside[v.index()] && v.kind() == TraceGraph.Kind.OBJECTIVE) {
                    outs.add(v.index());
                }
            }
            int in = Integer.MAX_VALUE;
            for (TraceGraph.Edge e : g.edges()) {
                if (inside[e.from()] && !inside[e.to()]) {
                    outs.add(e.from());
                }
                TraceGraph.Vertex from = g.vertex(e.from());
                if (!inside[e.from()] && inside[e.to()] && from.kind() == TraceGraph.Kind.OP && from.name() != null
                        && leaves.contains(from.name())) {
                    in = Math.min(in, e.from());
                }
            }
            if (outs.size() == 1 && in < Integer.MAX_VALUE && outputs.contains(outs.first())) {
                expected.add(name);
            }
        }
        assertTrue(expected.size() > 5 && expected.size() < g.groupNames().size(),
                expected.size() + " of " + g.groupNames().size() + " groups have one output and an input");
        assertEquals(expected, j.groups());
        // Choosing one picks its ends.
        String first = expected.get(0);
        j.setGroup(first);
        assertEquals(first, j.currentGroup());
    }
}
