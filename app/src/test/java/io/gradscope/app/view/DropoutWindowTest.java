package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.trace.TraceGraph;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** The inspector of a dropout node shows its recorded mask as a map of its own; a tanh node's shows none. */
class DropoutWindowTest extends WindowFixture {

    @Test
    void theInspectorShowsTheMaskOfADropoutNodeOnly(FxRobot robot) {
        openText(robot, "dropout.grad", "x = input(6, 8)\nh = dropout(x, p=0.5, seed=1)\nt = tanh(h)\nloss = sum(t)\n");
        TraceGraph g = sweep().recorded().get().graph();
        int h = g.vertices().stream().filter(v -> "h".equals(v.name())).findFirst().orElseThrow().index();
        int t = g.vertices().stream().filter(v -> "t".equals(v.name())).findFirst().orElseThrow().index();
        Inspector inspector = window.inspector();
        robot.interact(() -> sweep().select(h));
        assertEquals(1, inspector.shownMaps().size());
        Heatmap mask = inspector.shownMaps().get(0);
        assertSame(g.vertex(h).shown().values().iterator().next(), mask.tensor());
        assertTrue(mask.captionText().startsWith("kept "), mask.captionText());
        assertTrue(mask.statsText().contains("max 2.000"), "kept ×1/(1 − p) = ×2: " + mask.statsText());
        robot.interact(() -> sweep().select(t));
        assertTrue(inspector.shownMaps().isEmpty(), "tanh shows nothing beyond its value");
    }

    private static void assertSame(Object a, Object b) {
        org.junit.jupiter.api.Assertions.assertSame(a, b, "the tensor the engine recorded");
    }
}
