package io.gradscope.app.draw;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.layout.Hierarchy;
import io.gradscope.app.layout.Programs;
import io.gradscope.app.service.RunService;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.trace.TraceGraph;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What the user opens of a large program stays readable at Fit in the window's graph area (about
 * 500 × 420 px): every drawn node gets a label, every opened section a title. Drawn with a recording
 * pen, at the scale Fit gives.
 */
class ReadableAtFitTest {
    static final double PANEL_W = 500;
    static final double PANEL_H = 420;

    /** What the painter draws at Fit in the graph area. */
    static RecordingPen atFit(TraceGraph g, GraphLayout.Result r) {
        Camera c = new Camera();
        c.resize(PANEL_W, PANEL_H);
        c.fit(r.bounds());
        RecordingPen pen = new RecordingPen();
        GraphPainter.paint(pen, new GraphScene(g, r), GraphPainter.View.of(c));
        return pen;
    }

    static Set<String> labelled(RecordingPen pen, String kind) {
        return pen.texts.stream().filter(t -> t.owner().startsWith(kind + ":")).map(t -> t.owner().substring(kind.length() + 1))
                .collect(Collectors.toSet());
    }

    @Test
    void theLastSectionOfTheWideProgramOpenedLeavesEveryBoxLabelledAtFit() {
        // The last section of the 1,000-node wide program holds the top of the summing tree. Once it held
        // the whole tree, 160 values entering, each by a port of its own: a row of 160 ports above one box,
        // at Fit dashes. Now its 26 additions: 12 in one layer drew a row 1,500 px wide until an opened
        // section's rows were wrapped at 8.
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.WIDE, 1000);
        TraceGraph g = Programs.graph("wide.grad", text);
        Hierarchy h = Hierarchy.of(g);
        Set<String> collapsed = new HashSet<>(RunService.collapsedOnOpen(h, Program.parse("test.grad", text)));
        List<Hierarchy.Member> members = h.container(Hierarchy.ROOT).members();
        String last = members.get(members.size() - 1).container();
        collapsed.remove(last);
        GraphLayout.Result r = GraphLayout.layout(g, collapsed);
        RecordingPen pen = atFit(g, r);
        Set<String> unlabelled = new TreeSet<>(r.nodes().keySet());
        unlabelled.removeAll(labelled(pen, "node"));
        assertTrue(unlabelled.isEmpty(), "no label at Fit (" + r.width() + " x " + r.height() + "): " + unlabelled);
        assertTrue(labelled(pen, "group").contains(last), "the opened section's title: " + pen.texts);
    }

    @Test
    void aSectionOpenedInsideAnOpenedSectionOfALongChainIsReadableAtFitAndHasItsTitle() {
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200);
        TraceGraph g = Programs.graph("chain.grad", text);
        Hierarchy h = Hierarchy.of(g);
        Set<String> collapsed = new HashSet<>(RunService.collapsedOnOpen(h, Program.parse("test.grad", text)));
        List<Hierarchy.Member> members = h.container(Hierarchy.ROOT).members();
        String outer = members.get(members.size() / 2).container();
        String inner = h.container(outer).members().get(2).container();
        collapsed.remove(outer);
        collapsed.remove(inner);
        GraphLayout.Result r = GraphLayout.layout(g, collapsed);
        RecordingPen pen = atFit(g, r);
        Set<String> innerNodes = h.container(inner).members().stream().filter(Hierarchy.Member::isVertex)
                .map(m -> "v" + m.vertex()).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(innerNodes.size() > 10, "the inner section holds nodes: " + innerNodes);
        Set<String> unlabelled = new TreeSet<>(r.nodes().keySet());
        unlabelled.removeAll(labelled(pen, "node"));
        assertTrue(unlabelled.isEmpty(), "no label at Fit (" + r.width() + " x " + r.height() + "): " + unlabelled);
        assertTrue(labelled(pen, "group").containsAll(List.of(outer, inner)), "titles: " + labelled(pen, "group"));
    }

    @Test
    void aTitleTooLongForItsBoxShowsTheSectionsLinesOrIsCutShort() {
        RecordingPen pen = new RecordingPen();
        String name = "lines 631–645: matmul, add, relu…";
        double size = 12;
        double whole = pen.textWidth(name, size, true);
        double lines = pen.textWidth("lines 631–645", size, true);
        assertTrue(name.equals(GraphPainter.titleThatFits(pen, name, size, whole)));
        assertTrue("lines 631–645".equals(GraphPainter.titleThatFits(pen, name, size, lines + 1)));
        String cut = GraphPainter.titleThatFits(pen, name, size, lines - 1);
        assertTrue(cut != null && cut.endsWith("…") && pen.textWidth(cut, size, true) <= lines - 1, cut);
        assertTrue(GraphPainter.titleThatFits(pen, name, size, 5) == null);
    }
}
