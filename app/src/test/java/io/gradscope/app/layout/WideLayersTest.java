package io.gradscope.app.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.service.RunService;
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
        Set<String> collapsed = RunService.collapsedOnOpen(h, text);
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
}
