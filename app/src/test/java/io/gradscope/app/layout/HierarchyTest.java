package io.gradscope.app.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.trace.TraceGraph;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Repeated structure is found (same ops, shapes, wiring) and becomes a run of blocks that folds into one node. */
class HierarchyTest {

    @Test
    void a150BlockResidualChainIsOneRunOf150Blocks() {
        TraceGraph g = Programs.graph("chain.grad", Programs.residualChain(150));
        assertEquals(753, g.size());
        Hierarchy h = Hierarchy.of(g);
        assertEquals(Set.of("⟳1"), h.runs());
        Hierarchy.Container run = h.container("⟳1");
        assertEquals("block ×150", run.name());
        assertEquals(750, run.size());
        assertEquals(150, run.members().size());
        for (int b = 1; b <= 150; b++) {
            Hierarchy.Container block = h.container("⟳1/" + b);
            assertEquals(Hierarchy.Kind.BLOCK, block.kind());
            // W_b, then its statement: matmul, tanh, the scale, the residual add.
            List<String> ops = block.members().stream().map(m -> g.vertex(m.vertex()).op()).toList();
            assertEquals(List.of("param", "matmul", "tanh", "mul", "add"), ops, "block " + b);
            assertEquals("W" + b, g.vertex(block.members().get(0).vertex()).name());
        }
        // Folded, the 750 vertices are one node; x, t and the loss stay themselves.
        Set<String> keys = new HashSet<>();
        for (TraceGraph.Vertex v : g.vertices()) {
            keys.add(h.keyOf(v.index(), h.runs()));
        }
        assertEquals(Set.of("v0", "v1", "g:⟳1", "v752"), keys);
        assertEquals("▸ block ×150 · 750 nodes", h.collapsedLabel("⟳1"));
    }

    @Test
    void layersWrittenAsGroupsAreARunOfThoseGroups() {
        TraceGraph g = Programs.graph("layers.grad", Programs.layers(6));
        Hierarchy h = Hierarchy.of(g);
        assertEquals(1, h.runs().size(), "runs: " + h.runs());
        Hierarchy.Container run = h.container(h.runs().iterator().next());
        assertEquals("layer ×6", run.name());
        assertEquals(6, run.members().size());
        // Each block holds its layer's parameters and its group, which keeps its path.
        int in3 = g.vertices().stream().filter(v -> v.groups().equals(List.of("layer3"))).findFirst().orElseThrow().index();
        assertEquals(List.of(run.id(), run.id() + "/3", "layer3"), h.chain(in3));
        assertEquals("g:layer3", h.keyOf(in3, Set.of("layer3")), "a layer still collapses by its path");
        assertEquals("g:" + run.id(), h.keyOf(in3, h.runs()));
    }

    @Test
    void aBlockWiredDifferentlySplitsTheRun() {
        // Block 10 takes the program's input, not the block before: it is not the same block.
        StringBuilder sb = new StringBuilder("x = input(4, 8)\n");
        String prev = "x";
        for (int i = 1; i <= 20; i++) {
            String in = i == 10 ? "x" : prev;
            sb.append("W").append(i).append(" = param(8, 8)\nh").append(i).append(" = ").append(prev).append(" + tanh(").append(in)
                    .append(" @ W").append(i).append(")\n");
            prev = "h" + i;
        }
        sb.append("loss = sum(").append(prev).append(")\n");
        TraceGraph g = Programs.graph("split.grad", sb.toString());
        Hierarchy h = Hierarchy.of(g);
        assertEquals(2, h.runs().size(), "runs: " + h.runs());
        int odd = g.vertices().stream().filter(v -> "h10".equals(v.name())).findFirst().orElseThrow().index();
        assertEquals(List.of(), h.chain(odd), "block 10 is in no run");
        // Blocks 1-9 and 11-20, four vertices each.
        assertEquals(List.of(36, 40), h.runs().stream().map(r -> h.container(r).size()).toList());
    }

    @Test
    void theTeachingExamplesHaveNoRunsAndLookAsBefore() throws IOException {
        try (Stream<Path> files = Files.walk(Path.of("../assets/examples"), 2)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".grad")).toList()) {
                String rel = Path.of("../assets/examples").relativize(p).toString();
                assertTrue(Hierarchy.of(Programs.example(rel)).runs().isEmpty(), rel);
            }
        }
    }

    @Test
    void groupsNestAsThePaths() {
        TraceGraph g = Programs.example("transformer_block.grad");
        Hierarchy h = Hierarchy.of(g);
        assertEquals(Set.of("attention", "mlp"), h.outermost());
        assertFalse(h.container("attention").members().isEmpty());
    }
}
