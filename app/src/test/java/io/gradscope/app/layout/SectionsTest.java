package io.gradscope.app.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.service.RunService;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.trace.TraceGraph;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A long chain with nothing repeating is cut into sections of whole statements that fold into a few boxes. */
class SectionsTest {

    @Test
    void an803NodeChainWithNothingRepeatingOpensAsAtMost16SectionsCoveringEveryVertexOnce() {
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 803);
        TraceGraph g = Programs.graph("chain.grad", text);
        Hierarchy h = Hierarchy.of(g);
        assertTrue(h.runs().isEmpty(), "nothing repeats: " + h.runs());
        Hierarchy.Container root = h.container(Hierarchy.ROOT);
        assertTrue(root.members().size() <= Sections.MAX_SECTIONS && root.members().size() >= 2, "top: " + root.members().size());
        int covered = 0;
        for (Hierarchy.Member m : root.members()) {
            Hierarchy.Container s = h.container(m.container());
            assertEquals(Hierarchy.Kind.SECTION, s.kind());
            assertTrue(s.members().size() <= Sections.MAX_MEMBERS, s.id() + ": " + s.members().size());
            covered += s.size();
        }
        assertEquals(g.size(), covered);
        // A statement is never split: each program line's vertices share their innermost section.
        Map<Integer, String> sectionOfLine = new HashMap<>();
        for (TraceGraph.Vertex v : g.vertices()) {
            var chain = h.chain(v.index());
            String inner = chain.get(chain.size() - 1);
            String before = sectionOfLine.putIfAbsent(v.line(), inner);
            assertTrue(before == null || before.equals(inner), "line " + v.line() + " in " + before + " and " + inner);
        }
        // Opened as the app opens it: one node per section, each labelled with its lines.
        Set<String> collapsed = RunService.collapsedOnOpen(h, Program.parse("test.grad", text));
        GraphLayout.Result r = GraphLayout.layout(g, collapsed);
        assertEquals(root.members().size(), r.nodes().size());
        assertTrue(r.nodes().values().stream().allMatch(d -> d.label().contains("lines ")), "labels: " + r.nodes().keySet());
        // Wrapped, not a hairline: the chain of sections is laid out in columns.
        assertTrue(r.width() > r.height() / 3, r.width() + " x " + r.height());
    }

    @Test
    void openingASectionShowsWhatItHoldsInPlaceOfItsBox() {
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 10_000);
        TraceGraph g = Programs.graph("chain.grad", text);
        Hierarchy h = Hierarchy.of(g);
        Set<String> collapsed = new java.util.HashSet<>(RunService.collapsedOnOpen(h, Program.parse("test.grad", text)));
        String first = h.container(Hierarchy.ROOT).members().get(0).container();
        collapsed.remove(first);
        GraphLayout.Result r = GraphLayout.layout(g, collapsed);
        Hierarchy.Container opened = h.container(first);
        for (Hierarchy.Member m : opened.members()) {
            String key = m.isVertex() ? "v" + m.vertex() : "g:" + m.container();
            assertTrue(r.nodes().containsKey(key), key + " not drawn");
        }
        assertTrue(r.nodes().size() < 100, "drawn: " + r.nodes().size());
        assertTrue(r.groups().stream().anyMatch(b -> b.path().equals(first)), "the opened section is a box around its members");
    }

    @Test
    void openingOneSectionDoesNotStretchTheOthers() {
        // Once, every cell of the grid took the opened section's height: at Fit the 15 folded sections were
        // unlabelled slivers spread over the whole height with long lines between them.
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200);
        TraceGraph g = Programs.graph("chain.grad", text);
        Hierarchy h = Hierarchy.of(g);
        Set<String> collapsed = new java.util.HashSet<>(RunService.collapsedOnOpen(h, Program.parse("test.grad", text)));
        GraphLayout.Result folded = GraphLayout.layout(g, collapsed);
        String first = h.container(Hierarchy.ROOT).members().get(0).container();
        collapsed.remove(first);
        GraphLayout.Result r = GraphLayout.layout(g, collapsed);
        GraphLayout.Box opened = r.groups().stream().filter(b -> b.path().equals(first)).findFirst().orElseThrow().box();
        java.util.List<GraphLayout.Box> boxes = new java.util.ArrayList<>();
        for (Hierarchy.Member m : h.container(Hierarchy.ROOT).members().subList(1, h.container(Hierarchy.ROOT).members().size())) {
            boxes.add(r.nodes().get("g:" + m.container()).box());
        }
        double tallestFolded = boxes.stream().mapToDouble(GraphLayout.Box::h).max().orElseThrow();
        assertTrue(opened.h() > 3 * tallestFolded, "the opened section holds its members: " + opened.h());
        for (int i = 0; i + 1 < boxes.size(); i++) {
            GraphLayout.Box a = boxes.get(i);
            GraphLayout.Box b = boxes.get(i + 1);
            if (Math.abs(a.cx() - b.cx()) < 1) {
                double gap = b.y() - (a.y() + a.h());
                assertTrue(gap > 0 && gap < 2 * tallestFolded + 40, "sections " + (i + 2) + " and " + (i + 3) + " are " + gap + " apart");
            }
        }
        // What was drawn grows by about the opened section, not by a whole grid of cells its size.
        double before = folded.width() * folded.height();
        double after = r.width() * r.height();
        assertTrue(after < before + 3 * opened.w() * opened.h(), before + " -> " + after);
    }

    @Test
    void sectionsOfAProgramWithGroupsAreNamedByItsGroupsAndLinesOnlyWhereThereAreNone() {
        // At Fit a random program's sections read "lines 1-874" although the program names its groups.
        String text = io.gradscope.app.cli.RandomProgram.of(3000, 11);
        TraceGraph g = Programs.graph("random.grad", text);
        Hierarchy h = Hierarchy.of(g);
        java.util.List<Hierarchy.Member> top = h.container(Hierarchy.ROOT).members();
        assertTrue(top.size() >= 2 && top.size() <= Sections.MAX_SECTIONS, "top: " + top.size());
        for (Hierarchy.Member m : top) {
            Hierarchy.Container s = h.container(m.container());
            assertEquals(Hierarchy.Kind.SECTION, s.kind(), s.id());
            // Its name names its first and last top-level groups, as the program spells them.
            java.util.List<String> groups = s.members().stream().filter(x -> !x.isVertex())
                    .map(x -> h.container(x.container())).filter(c -> c.kind() == Hierarchy.Kind.GROUP).map(Hierarchy.Container::name).toList();
            assertTrue(!groups.isEmpty(), s.id() + " holds no group");
            assertTrue(s.name().startsWith(groups.get(0)) && s.name().contains(groups.get(groups.size() - 1)) && !s.name().contains("lines"),
                    s.id() + " is named '" + s.name() + "', its groups " + groups);
            assertTrue(text.contains("with group(\"" + groups.get(0) + "\")"), groups.get(0));
        }
        // A program without groups keeps its line ranges.
        Hierarchy plain = Hierarchy.of(Programs.graph("chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 803)));
        for (Hierarchy.Member m : plain.container(Hierarchy.ROOT).members()) {
            assertTrue(plain.container(m.container()).name().startsWith("lines "), plain.container(m.container()).name());
        }
    }

    @Test
    void aSectionTooLongIsCutAgainAndSmallProgramsAreLeftAlone() {
        TraceGraph big = Programs.graph("chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 5000));
        Hierarchy h = Hierarchy.of(big);
        for (Hierarchy.Container c : h.containers()) {
            assertTrue(c.members().size() <= Math.max(Sections.MAX_MEMBERS, Sections.MAX_SECTIONS), c.id() + ": " + c.members().size());
        }
        assertTrue(h.sections().stream().anyMatch(id -> id.indexOf('§') != id.lastIndexOf('§')), "nested: " + h.sections());
        TraceGraph small = Programs.graph("small.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 50));
        assertTrue(Hierarchy.of(small).sections().isEmpty());
    }

    @Test
    void theWideProgramsSummingTreeIsCutIntoSectionsLikeItsBranches() {
        // Its 164 additions were folded into one run ("t ×164") that counted as one member, so the last
        // section held it and covered lines 310-498 where the others covered 22 lines each.
        TraceGraph g = Programs.graph("wide.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.WIDE, 1000));
        Hierarchy h = Hierarchy.of(g);
        java.util.List<Integer> sizes = new java.util.ArrayList<>();
        java.util.List<Integer> spans = new java.util.ArrayList<>();
        int covered = 0;
        for (Hierarchy.Member m : h.container(Hierarchy.ROOT).members()) {
            Hierarchy.Container s = h.container(m.container());
            assertEquals(Hierarchy.Kind.SECTION, s.kind(), s.id());
            int from = Integer.MAX_VALUE;
            int to = 0;
            for (TraceGraph.Vertex v : g.vertices()) {
                if (h.chain(v.index()).contains(s.id())) {
                    from = Math.min(from, v.line());
                    to = Math.max(to, v.line());
                }
            }
            sizes.add(s.size());
            spans.add(to - from + 1);
            covered += s.size();
        }
        assertEquals(g.size(), covered);
        assertTrue(sizes.size() <= Sections.MAX_SECTIONS, "sections: " + sizes);
        int medianSize = sizes.stream().sorted().toList().get(sizes.size() / 2);
        int medianSpan = spans.stream().sorted().toList().get(spans.size() / 2);
        assertTrue(sizes.stream().allMatch(n -> n <= 1.5 * medianSize), "nodes a section: " + sizes);
        assertTrue(spans.stream().allMatch(n -> n <= 3 * medianSpan), "lines a section: " + spans);
    }
}
