package io.gradscope.app.draw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.layout.Programs;
import io.gradscope.app.layout.TextWidth;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Labels scale with the graph and never leave their box (so never overlap); arrowheads sit where edges arrive. */
class GraphPainterTest {
    static final double[] SCALES = {0.01, 0.05, 0.15, 0.3, 0.5, 0.7, 0.75, 1, 1.5, 3, 8};

    @Test
    void atEveryZoomEachLabelFitsItsBoxAndNoTwoLabelsOverlap() {
        for (TraceGraph g : List.of(Programs.example("transformer_block.grad"), Programs.graph("chain.grad", Programs.residualChain(30)))) {
            GraphLayout layouts = GraphLayout.of(g);
            for (Set<String> collapsed : List.of(Set.<String>of(), layouts.hierarchy().runs())) {
                GraphScene scene = new GraphScene(g, layouts.layout(collapsed));
                // The current node's label is bold: make every node current once over the scales.
                for (double k : SCALES) {
                    RecordingPen pen = new RecordingPen();
                    GraphPainter.paint(pen, scene, GraphPainter.View.whole(scene.layout(), k, 10));
                    for (RecordingPen.Text t : pen.texts) {
                        assertTrue(t.size() >= GraphPainter.MIN_FONT - 1e-9, "no label under " + GraphPainter.MIN_FONT + " px: " + t);
                        if (!t.owner().startsWith("node:")) {
                            continue;
                        }
                        double[] b = scene.box(scene.indexOf(t.owner().substring(5)));
                        double x = b[0] * k + 10;
                        double y = b[1] * k + 10;
                        assertTrue(t.x() >= x && t.x() + t.width() <= x + b[2] * k + 1e-6, "inside its box at " + k + ": " + t);
                        assertTrue(t.y() - t.size() / 2 >= y - 1e-6 && t.y() + t.size() / 2 <= y + b[3] * k + 1e-6, "height at " + k + ": " + t);
                    }
                    for (int i = 0; i < pen.texts.size(); i++) {
                        for (int j = i + 1; j < pen.texts.size(); j++) {
                            RecordingPen.Text a = pen.texts.get(i);
                            RecordingPen.Text c = pen.texts.get(j);
                            boolean apart = a.x() + a.width() <= c.x() || c.x() + c.width() <= a.x()
                                    || a.y() + a.size() / 2 <= c.y() - c.size() / 2 || c.y() + c.size() / 2 <= a.y() - a.size() / 2;
                            assertTrue(apart, "at " + k + ": " + a + " overlaps " + c);
                        }
                    }
                }
            }
        }
    }

    @Test
    void labelsScaleWithTheGraphAndShortenWhenSmall() {
        GraphScene scene = new GraphScene(Programs.example("mlp.grad"), GraphLayout.layout(Programs.example("mlp.grad"), Set.of()));
        RecordingPen big = new RecordingPen();
        GraphPainter.paint(big, scene, GraphPainter.View.whole(scene.layout(), 2, 0));
        assertTrue(big.texts.stream().anyMatch(t -> t.s().equals("loss = cross_entropy []") && t.size() == 2 * TextWidth.SIZE), big.texts.toString());
        RecordingPen small = new RecordingPen();
        GraphPainter.paint(small, scene, GraphPainter.View.whole(scene.layout(), 0.5, 0));
        // At half size the full labels would be 5.5 px: the names are shown instead, at a readable size.
        assertTrue(small.texts.stream().anyMatch(t -> t.s().equals("loss") && t.size() >= GraphPainter.MIN_FONT), small.texts.toString());
        RecordingPen tiny = new RecordingPen();
        GraphPainter.paint(tiny, scene, GraphPainter.View.whole(scene.layout(), 0.05, 0));
        assertEquals(List.of(), tiny.texts, "too small for any label");
    }

    @Test
    void theBoldLabelOfTheCurrentNodeFitsItsBox() {
        TraceGraph g = Programs.example("transformer_block.grad");
        GraphScene scene = new GraphScene(g, GraphLayout.layout(g, Set.of()));
        for (int i = 0; i < scene.size(); i++) {
            double[] b = scene.box(i);
            String label = scene.labels[i];
            assertTrue(TextWidth.of(label, TextWidth.SIZE, true) + 8 <= b[2], "\"" + label + "\" in bold fits " + b[2]);
        }
    }

    @Test
    void arrowheadsPointAlongTheLastSegmentToWhereTheEdgeArrives() {
        TraceGraph g = Programs.example("transformer_block.grad");
        GraphScene scene = new GraphScene(g, GraphLayout.layout(g, Set.of()));
        RecordingPen pen = new RecordingPen();
        GraphPainter.paint(pen, scene, GraphPainter.View.whole(scene.layout(), 1, 0));
        // No edge is lit: they are drawn in order, one group each.
        List<String> owners = pen.shapes.stream().map(RecordingPen.Shape::owner).filter(o -> o.startsWith("edge:")).distinct().toList();
        assertEquals(scene.routes.length, owners.size());
        int arrows = 0;
        for (int e = 0; e < scene.routes.length; e++) {
            double[] route = scene.routes[e];
            String o = owners.get(e);
            RecordingPen.Shape arrow = pen.shapes.stream().filter(s -> s.owner().equals(o) && s.kind().equals("arrow")).findFirst().orElseThrow();
            double tipX = route[route.length - 2];
            double tipY = route[route.length - 1];
            assertEquals(tipX, arrow.xy()[0], 1e-9);
            assertEquals(tipY, arrow.xy()[1], 1e-9);
            // Its base is behind the tip, along the last segment (here: above it, the edges run down).
            double dx = tipX - route[route.length - 4];
            double dy = tipY - route[route.length - 3];
            double baseX = (arrow.xy()[2] + arrow.xy()[4]) / 2;
            double baseY = (arrow.xy()[3] + arrow.xy()[5]) / 2;
            assertTrue((tipX - baseX) * dx + (tipY - baseY) * dy > 0, "points along the edge");
            arrows++;
        }
        assertEquals(scene.routes.length, arrows);
    }

    @Test
    void visitedAndCurrentLabelsAreDarkAndPendingOnesDim() {
        for (String kind : List.of("op", "param", "input", "objective", "group")) {
            assertEquals(Looks.TEXT, Looks.node(kind, Sweep.State.VISITED, false).text(), kind);
            assertEquals(Looks.TEXT, Looks.node(kind, Sweep.State.CURRENT, false).text(), kind);
            assertEquals(Looks.TEXT, Looks.node(kind, Sweep.State.CURRENT, true).text(), kind);
            assertEquals(Looks.DIM_TEXT, Looks.node(kind, Sweep.State.PENDING, false).text(), kind);
        }
        assertEquals(Looks.CURRENT_FILL, Looks.node("param", Sweep.State.CURRENT, false).fill());
        assertEquals(Looks.VISITED_STROKE, Looks.node("op", Sweep.State.VISITED, false).stroke());
        assertEquals(Looks.PENDING_FILL, Looks.node("param", Sweep.State.PENDING, false).fill(), "an unreached parameter is dim");
    }

    @Test
    void labelledSaysWhetherThePainterWritesInTheNode() {
        TraceGraph g = Programs.graph("chain.grad", Programs.residualChain(30));
        GraphScene scene = new GraphScene(g, GraphLayout.layout(g, Set.of()));
        int both = 0;
        for (double k : SCALES) {
            RecordingPen pen = new RecordingPen();
            GraphPainter.paint(pen, scene, GraphPainter.View.whole(scene.layout(), k, 10));
            Set<String> written = new java.util.HashSet<>();
            pen.texts.forEach(t -> written.add(t.owner()));
            for (int i = 0; i < scene.size(); i++) {
                boolean labelled = GraphPainter.labelled(pen, scene, i, k);
                assertEquals(written.contains("node:" + scene.key(i)), labelled, scene.key(i) + " at " + k);
                both += labelled ? 1 : 0;
            }
        }
        assertTrue(both > 0 && both < SCALES.length * scene.size(), "labelled at some scales, not at others");
    }

    @Test
    void aSectionStartingLeftOfTheViewHasItsTitleInTheViewWhereverThePartRedrawn() {
        TraceGraph g = Programs.graph("chain.grad", Programs.residualChain(30));
        GraphScene scene = new GraphScene(g, GraphLayout.layout(g, Set.of()));
        GraphLayout.GroupBox outer = scene.layout().groups().stream()
                .max(java.util.Comparator.comparingDouble(b -> b.box().w() * b.box().h())).orElseThrow();
        GraphLayout.Box b = outer.box();
        // Scale 1, the box's left edge 150 px left of a 400 x 300 view, its top 20 px down.
        double ox = -b.x() - 150;
        double oy = -b.y() + 20;
        assertTrue(b.w() > 300, "the box reaches into the view: " + b);
        GraphPainter.View view = new GraphPainter.View(1, ox, oy, 400, 300);
        RecordingPen whole = new RecordingPen();
        GraphPainter.paint(whole, scene, view);
        RecordingPen.Text title = whole.texts.stream().filter(t -> t.owner().equals("group:" + outer.path())).findFirst().orElseThrow();
        assertTrue(title.x() >= 0 && title.x() + title.width() <= 400, "the title in the view: " + title);
        RecordingPen part = new RecordingPen();
        GraphPainter.paint(part, scene, view.clip(100, 0, 300, 100));
        RecordingPen.Text again = part.texts.stream().filter(t -> t.owner().equals("group:" + outer.path())).findFirst().orElseThrow();
        assertEquals(title, again, "a step's partial redraw writes it where the whole one did");
    }
}
