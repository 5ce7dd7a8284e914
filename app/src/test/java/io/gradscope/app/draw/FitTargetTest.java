package io.gradscope.app.draw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fit with sections opened in a 10,000-node chain (as Find opens them): the whole graph at Fit is
 * an unlabelled texture, so Fit shows the opened section around the node followed, every node of it
 * labelled; Fit again shows everything.
 */
class FitTargetTest {
    static TraceGraph g;
    static Hierarchy h;
    static GraphLayout.Result r;
    static String outer;
    static String inner;
    static Set<String> innerNodes;

    @BeforeAll
    static void openTwoSections() {
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 10_000);
        g = Programs.graph("chain.grad", text);
        h = Hierarchy.of(g);
        Set<String> collapsed = new HashSet<>(RunService.collapsedOnOpen(h, Program.parse("test.grad", text)));
        List<Hierarchy.Member> members = h.container(Hierarchy.ROOT).members();
        outer = members.get(members.size() / 2).container();
        inner = h.container(outer).members().get(2).container();
        collapsed.remove(outer);
        collapsed.remove(inner);
        r = GraphLayout.layout(g, collapsed);
        innerNodes = h.container(inner).members().stream().filter(Hierarchy.Member::isVertex).map(m -> "v" + m.vertex())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    static Camera camera() {
        Camera c = new Camera();
        c.resize(ReadableAtFitTest.PANEL_W, ReadableAtFitTest.PANEL_H);
        return c;
    }

    static RecordingPen paint(Camera c) {
        RecordingPen pen = new RecordingPen();
        GraphPainter.paint(pen, new GraphScene(g, r), GraphPainter.View.of(c));
        return pen;
    }

    @Test
    void fitShowsTheOpenedSectionAroundTheFollowedNodeReadableThenEverything() {
        assertTrue(innerNodes.size() > 10, "the inner section holds nodes: " + innerNodes);
        Camera c = camera();
        c.fit(r.bounds());
        Set<String> atWhole = ReadableAtFitTest.labelled(paint(c), "node");
        assertFalse(atWhole.containsAll(innerNodes), "the whole chain at Fit is too small to label the opened section");

        GraphLayout.Box anchor = r.nodes().get(innerNodes.iterator().next()).box();
        GraphLayout.Box target = FitTarget.choose(c, r, anchor, null);
        c.fit(target);
        RecordingPen pen = paint(c);
        Set<String> unlabelled = new TreeSet<>(innerNodes);
        unlabelled.removeAll(ReadableAtFitTest.labelled(pen, "node"));
        assertTrue(unlabelled.isEmpty(), "unlabelled at Fit: " + unlabelled);
        assertTrue(ReadableAtFitTest.labelled(pen, "group").contains(inner), "the section's title: " + ReadableAtFitTest.labelled(pen, "group"));

        assertEquals(r.bounds(), FitTarget.choose(c, r, anchor, null), "Fit again: everything");
    }

    @Test
    void aSectionIsFittedBesideTheOverviewMapsCornerAndFitAgainShowsEverything() {
        Camera c = camera();
        c.fit(r.bounds());
        double[] corner = {120, 90};
        GraphLayout.Box anchor = r.nodes().get(innerNodes.iterator().next()).box();
        FitTarget.Shown shown = FitTarget.choose(c, r, anchor, null, corner);
        assertFalse(shown.target().equals(r.bounds()), "a section, not everything");
        c.fit(shown.target(), shown.area());
        GraphLayout.Box t = shown.target();
        double x0 = c.toPxX(t.x());
        double y0 = c.toPxY(t.y());
        double x1 = c.toPxX(t.x() + t.w());
        double y1 = c.toPxY(t.y() + t.h());
        assertTrue(x0 >= -1e-6 && y0 >= -1e-6 && x1 <= c.width() + 1e-6 && y1 <= c.height() + 1e-6, "in view: " + x0 + ", " + y0 + " to " + x1 + ", " + y1);
        assertTrue(x1 <= c.width() - corner[0] + 1e-6 || y1 <= c.height() - corner[1] + 1e-6,
                "clear of the corner from " + (c.width() - corner[0]) + ", " + (c.height() - corner[1]) + ": the section to " + x1 + ", " + y1);
        Set<String> unlabelled = new TreeSet<>(innerNodes);
        unlabelled.removeAll(ReadableAtFitTest.labelled(paint(c), "node"));
        assertTrue(unlabelled.isEmpty(), "unlabelled beside the map: " + unlabelled);
        assertEquals(r.bounds(), FitTarget.choose(c, r, anchor, null, corner).target(), "Fit again: everything");
    }

    @Test
    void withNoNodeFollowedFitShowsTheSectionOpenedLast() {
        Camera c = camera();
        GraphLayout.Box target = FitTarget.choose(c, r, null, inner);
        c.fit(target);
        Set<String> unlabelled = new TreeSet<>(innerNodes);
        unlabelled.removeAll(ReadableAtFitTest.labelled(paint(c), "node"));
        assertTrue(unlabelled.isEmpty(), "unlabelled at Fit: " + unlabelled);
        assertEquals(r.bounds(), FitTarget.choose(c, r, null, null), "nothing to go by: everything");
    }

    @Test
    void anUnfoldedGridOfRepeatedBlocksTooLargeToReadShowsItsBeginningLabelled() {
        String text = BenchUiPrograms.program(BenchUiPrograms.Shape.BLOCKS, 10_000);
        TraceGraph bg = Programs.graph("blocks.grad", text);
        Hierarchy bh = Hierarchy.of(bg);
        Set<String> collapsed = new HashSet<>(RunService.collapsedOnOpen(bh, Program.parse("test.grad", text)));
        String repeat = bh.containers().stream().filter(c -> c.kind() == Hierarchy.Kind.REPEAT).map(Hierarchy.Container::id)
                .filter(collapsed::contains).findFirst().orElseThrow();
        collapsed.remove(repeat);
        GraphLayout.Result br = GraphLayout.layout(bg, collapsed);
        Camera c = camera();
        c.fit(br.bounds());
        assertTrue(c.scale() < FitTarget.READABLE_SCALE, "the unfolded grid at Fit is unreadable: " + c.scale());
        c.fit(FitTarget.choose(c, br, null, repeat));
        RecordingPen pen = new RecordingPen();
        GraphPainter.paint(pen, new GraphScene(bg, br), GraphPainter.View.of(c));
        Set<String> inView = new TreeSet<>();
        for (GraphLayout.DisplayNode n : br.nodes().values()) {
            GraphLayout.Box b = n.box();
            if (c.toPxX(b.x()) >= 0 && c.toPxY(b.y()) >= 0 && c.toPxX(b.x() + b.w()) <= c.width() && c.toPxY(b.y() + b.h()) <= c.height()) {
                inView.add(n.key());
            }
        }
        assertTrue(inView.size() >= 5, "nodes in view: " + inView);
        inView.removeAll(ReadableAtFitTest.labelled(pen, "node"));
        assertTrue(inView.isEmpty(), "unlabelled in view: " + inView);
    }
}
