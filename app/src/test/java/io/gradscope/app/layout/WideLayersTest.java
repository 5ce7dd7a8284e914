package io.gradscope.app.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.service.RunService;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** A wide graph (many parallel branches of one input, summed at the end) opens as a readable grid of sections, not one thin row. */
class WideLayersTest {

    @Test
    void theParallelSectionsOfAWideGraphAreWrappedIntoSeveralRowsAndColumnsWithoutOverlapping() {
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.WIDE, 1000);
        TraceGraph g = Programs.graph("wide.grad", text);
        Hierarchy h = Hierarchy.of(g);
        Set<String> collapsed = RunService.collapsedOnOpen(h, Program.parse("test.grad", text));
        GraphLayout.Result r = GraphLayout.layout(g, collapsed);
        List<GraphLayout.Box> boxes = new ArrayList<>();
        for (GraphLayout.DisplayNode d : r.nodes().values()) {
            boxes.add(d.box());
        }
        assertTrue(boxes.size() > WideLayers.MAX_ROW + 2, "sections drawn: " + boxes.size());
        // Rows: distinct tops; columns: distinct lefts (boxes of one row share a top).
        Set<Long> tops = new TreeSet<>();
        for (GraphLayout.Box b : boxes) {
            tops.add(Math.round(b.y()));
        }
        int widestRow = 0;
        for (long top : tops) {
            int inRow = (int) boxes.stream().filter(b -> Math.round(b.y()) == top).count();
            widestRow = Math.max(widestRow, inRow);
        }
        assertTrue(tops.size() >= 4, "rows: " + tops);
        assertTrue(widestRow >= 2 && widestRow <= WideLayers.MAX_ROW, "the widest row holds " + widestRow);
        // Readable at Fit: the drawing is not a thin strip in either direction.
        assertTrue(r.width() < 4 * r.height() && r.height() < 4 * r.width(), r.width() + " x " + r.height());
        for (int i = 0; i < boxes.size(); i++) {
            for (int j = i + 1; j < boxes.size(); j++) {
                GraphLayout.Box a = boxes.get(i);
                GraphLayout.Box b = boxes.get(j);
                boolean apart = a.x() + a.w() <= b.x() || b.x() + b.w() <= a.x() || a.y() + a.h() <= b.y() || b.y() + b.h() <= a.y();
                assertTrue(apart, "boxes overlap: " + a + " and " + b);
            }
        }
        // Every drawn edge is still drawn (the wrapping edges are not).
        long between = g.edges().stream().filter(e -> !h.keyOf(e.from(), collapsed).equals(h.keyOf(e.to(), collapsed)))
                .map(e -> h.keyOf(e.from(), collapsed) + ">" + h.keyOf(e.to(), collapsed)).distinct().count();
        assertEquals(between, r.edges().stream().map(e -> e.from() + ">" + e.to()).distinct().count());
    }

    @Test
    void theSectionsOfAWideGraphAreReadRowByRowInProgramOrder() {
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.WIDE, 10000);
        TraceGraph g = Programs.graph("wide.grad", text);
        Hierarchy h = Hierarchy.of(g);
        GraphLayout.Result r = GraphLayout.layout(g, RunService.collapsedOnOpen(h, Program.parse("test.grad", text)));
        // The root's sections in program order (members are listed as written); their boxes, read as text is
        // read (top to bottom, then left to right), come in the same order.
        List<GraphLayout.Box> inProgram = new ArrayList<>();
        for (Hierarchy.Member m : h.container(Hierarchy.ROOT).members()) {
            GraphLayout.DisplayNode d = m.container() == null ? null : r.nodes().get("g:" + m.container());
            if (d != null) {
                inProgram.add(d.box());
            }
        }
        assertTrue(inProgram.size() > 2 * WideLayers.MAX_ROW, "sections: " + inProgram.size());
        for (int i = 1; i < inProgram.size(); i++) {
            GraphLayout.Box a = inProgram.get(i - 1);
            GraphLayout.Box b = inProgram.get(i);
            boolean after = b.y() > a.y() + a.h() / 2 || (Math.abs(b.y() - a.y()) <= a.h() / 2 && b.x() > a.x());
            assertTrue(after, "section " + i + " " + b + " is read after section " + (i - 1) + " " + a);
        }
    }

    @Test
    void openingOneSectionOfAWideGraphGrowsOnlyItsRowAndColumn() {
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.WIDE, 1000);
        TraceGraph g = Programs.graph("wide.grad", text);
        Hierarchy h = Hierarchy.of(g);
        Set<String> collapsed = new java.util.HashSet<>(RunService.collapsedOnOpen(h, Program.parse("test.grad", text)));
        GraphLayout.Result folded = GraphLayout.layout(g, collapsed);
        List<Hierarchy.Member> members = h.container(Hierarchy.ROOT).members();
        String opened = members.get(members.size() / 2).container();
        collapsed.remove(opened);
        GraphLayout.Result r = GraphLayout.layout(g, collapsed);
        GraphLayout.Box big = r.groups().stream().filter(b -> b.path().equals(opened)).findFirst().orElseThrow().box();
        List<GraphLayout.Box> rest = new ArrayList<>();
        for (Hierarchy.Member m : members) {
            GraphLayout.DisplayNode d = m.container() == null ? null : r.nodes().get("g:" + m.container());
            if (d != null) {
                rest.add(d.box());
            }
        }
        double tallest = rest.stream().mapToDouble(GraphLayout.Box::h).max().orElseThrow();
        assertTrue(big.h() > 3 * tallest, "the opened section holds its members: " + big.h());
        // Rows without the opened section keep their own height: their boxes' tops are a folded box's height
        // and a gap apart, not the opened section's height.
        TreeSet<Double> tops = new TreeSet<>();
        rest.forEach(b -> tops.add(Math.rint(b.y())));
        List<Double> t = new ArrayList<>(tops);
        int near = 0;
        for (int i = 0; i + 1 < t.size(); i++) {
            if (t.get(i + 1) - t.get(i) < tallest + 2 * WideLayers.GAP_Y) {
                near++;
            }
        }
        assertTrue(near >= t.size() - 3, "row tops " + t);
        double before = folded.width() * folded.height();
        assertTrue(r.width() * r.height() < before + 3 * big.w() * big.h(), before + " -> " + r.width() * r.height());
    }

    @Test
    void aWideLevelOfPlainNodesTheSummingTreeOpenedIsWrappedIntoRowsToo() {
        // A section of the wide program's summing tree opened: 63 additions, dozens in their first layer
        // (once, the tree's run opened: a layer of 64 in one row 6,000 px wide).
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.WIDE, 1000);
        TraceGraph g = Programs.graph("wide.grad", text);
        Hierarchy h = Hierarchy.of(g);
        Set<String> collapsed = new java.util.HashSet<>(RunService.collapsedOnOpen(h, Program.parse("test.grad", text)));
        String tree = h.container(Hierarchy.ROOT).members().stream().map(m -> h.container(m.container()))
                .filter(c -> c.members().stream().allMatch(m -> m.isVertex() && "add".equals(g.vertex(m.vertex()).op())))
                .max(java.util.Comparator.comparingInt(Hierarchy.Container::size)).orElseThrow().id();
        collapsed.remove(tree);
        GraphLayout.Result r = GraphLayout.layout(g, collapsed);
        List<GraphLayout.Box> adds = r.nodes().values().stream().filter(d -> d.vertex() >= 0 && "add".equals(g.vertex(d.vertex()).op()))
                .map(GraphLayout.DisplayNode::box).toList();
        assertTrue(adds.size() > 50, "additions drawn: " + adds.size());
        java.util.Map<Long, Long> perRow = adds.stream().collect(java.util.stream.Collectors.groupingBy(b -> Math.round(b.y()),
                java.util.stream.Collectors.counting()));
        long widest = perRow.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        assertTrue(widest <= 20, "the widest row of additions holds " + widest + " (rows " + perRow + ")");
        assertTrue(r.width() < 2 * r.height() && r.height() < 2 * r.width(), r.width() + " x " + r.height());
        for (int i = 0; i < adds.size(); i++) {
            for (int j = i + 1; j < adds.size(); j++) {
                GraphLayout.Box a = adds.get(i);
                GraphLayout.Box b = adds.get(j);
                assertTrue(a.x() + a.w() <= b.x() || b.x() + b.w() <= a.x() || a.y() + a.h() <= b.y() || b.y() + b.h() <= a.y(),
                        "overlap: " + a + " " + b);
            }
        }
    }
}
