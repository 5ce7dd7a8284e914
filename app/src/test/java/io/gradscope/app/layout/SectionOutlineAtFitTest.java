package io.gradscope.app.layout;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.draw.Camera;
import io.gradscope.engine.trace.TraceGraph;
import org.junit.jupiter.api.Test;

/**
 * A long program never seen before opens as its outline of folded sections; at Fit that outline fills
 * the graph pane: a random 10,000-statement program's 16 sections were one thin column, their titles
 * too small to read. The sections are not a strict chain (residual adds reach across them), so it is
 * the level of boxes, not the run of blocks, that is wrapped into columns.
 */
class SectionOutlineAtFitTest {
    /** The graph pane of the 1280x820 window (between the editor and the side tabs, above the memory panel). */
    private static final double PANE_W = 505;
    private static final double PANE_H = 420;

    @Test
    void aRandomProgramsOutlineOfSectionsIsNotAColumnAtFit() {
        TraceGraph g = Programs.graph("random.grad", io.gradscope.app.cli.RandomProgram.of(10000, 4));
        Hierarchy h = Hierarchy.of(g);
        GraphLayout.Result r = GraphLayout.layout(g, h.outermost());
        int sections = h.container(Hierarchy.ROOT).members().size();
        assertTrue(sections >= 8, "the outline holds " + sections + " sections");
        // As wide as tall within a factor of two, as the pane is.
        assertTrue(r.width() > r.height() / 2, "the outline is " + r.width() + " x " + r.height());
        Camera fit = new Camera();
        fit.resize(PANE_W, PANE_H);
        fit.fit(r.bounds());
        assertTrue(fit.scale() >= io.gradscope.app.draw.FitTarget.READABLE_SCALE,
                "titles " + TextWidth.SIZE * fit.scale() + " px at Fit (scale " + fit.scale() + ")");
    }
}
