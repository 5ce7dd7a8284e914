package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.draw.Camera;
import javafx.geometry.Bounds;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * A step whose node would be a speck (at Fit on a 1,200-node chain, every group expanded) zooms in
 * until the node's label is drawn; a view where it is drawn keeps its scale, as does the user's own
 * zoom in or out. The label is read back from what the painter draws for the node.
 */
class StepsReadTheNodeWindowTest extends WindowFixture {

    @Test
    void aStepAtFitZoomsInUntilTheNodeIsLabelledAndThenKeepsTheScale(FxRobot robot) {
        expandedChain(robot);
        GraphPanel panel = window.graphPanel();
        Camera camera = panel.camera();
        robot.interact(() -> {
            panel.fit();
            panel.drawNow();
            int first = sweep().recorded().get().vertexAt(sweep().mode().get(), 0);
            assertTrue(panel.boxOnScreen(sweep().keyOf(first)) != null, "the first step's node is drawn");
            assertFalse(labelDrawn(panel, sweep().keyOf(first)), "at Fit the node has no label (the case)");
            sweep().stepForward();
            panel.drawNow();
            assertReadableAndClear(panel, "the first step from Fit");
        });
        double readable = readFx(camera::scale);
        robot.interact(() -> {
            for (int i = 0; i < 5; i++) {
                sweep().stepForward();
                panel.drawNow();
                assertReadableAndClear(panel, "step " + sweep().cursor().get());
            }
        });
        assertEquals(readable, readFx(camera::scale), 1e-9, "once readable, steps keep the scale");
        robot.interact(() -> {
            panel.zoomIn();
            panel.zoomIn();
        });
        double closer = readFx(camera::scale);
        robot.interact(() -> {
            sweep().stepForward();
            panel.drawNow();
        });
        assertEquals(closer, readFx(camera::scale), 1e-9, "the user's zoom in is kept");
    }

    @Test
    void theUsersOwnZoomOutAndAClickAreNotZoomedIn(FxRobot robot) {
        expandedChain(robot);
        GraphPanel panel = window.graphPanel();
        Camera camera = panel.camera();
        robot.interact(() -> {
            panel.fit();
            sweep().stepForward();
            panel.drawNow();
            assertTrue(labelDrawn(panel, sweep().keyOf(sweep().currentVertex())), "zoomed in on the step");
            // The user zooms out by hand until the step's node has no label: a view over the sweep.
            for (int i = 0; i < 12 && labelDrawn(panel, sweep().keyOf(sweep().currentVertex())); i++) {
                panel.zoomOut();
                panel.drawNow();
            }
            assertFalse(labelDrawn(panel, sweep().keyOf(sweep().currentVertex())), "zoomed out to a speck");
        });
        double out = readFx(camera::scale);
        robot.interact(() -> {
            sweep().stepForward();
            sweep().stepForward();
            panel.drawNow();
        });
        assertEquals(out, readFx(camera::scale), 1e-9, "the user's zoom out is kept while stepping");
        robot.interact(() -> {
            panel.fit();
            sweep().select(sweep().recorded().get().vertexAt(sweep().mode().get(), 40));
            panel.drawNow();
        });
        assertEquals(readFx(() -> fitScale(panel)), readFx(camera::scale), 1e-9, "a click (a selection) at Fit does not zoom");
        robot.interact(() -> {
            sweep().stepForward();
            panel.drawNow();
        });
        assertTrue(readFx(() -> labelDrawn(panel, sweep().keyOf(sweep().currentVertex()))), "after Fit, a step zooms in again");
    }

    /** The 1,200-node chain, every group expanded, drawn. */
    private void expandedChain(FxRobot robot) {
        openText(robot, "chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        robot.interact(() -> sweep().expandAll());
        waitUntil("everything expanded", () -> sweep().layout().get().collapsed().isEmpty()
                && window.graphPanel().currentLayout() == sweep().layout().get());
    }

    private static double fitScale(GraphPanel panel) {
        Camera c = new Camera();
        c.resize(panel.camera().width(), panel.camera().height());
        c.fit(panel.currentLayout().bounds());
        return c.scale();
    }

    private void assertReadableAndClear(GraphPanel panel, String when) {
        String key = sweep().keyOf(sweep().currentVertex());
        double[] px = panel.boxOnScreen(key);
        Camera camera = panel.camera();
        assertTrue(px != null && px[0] >= 0 && px[1] >= 0 && px[0] + px[2] <= camera.width() && px[1] + px[3] <= camera.height(),
                when + ": the step's node in view");
        assertTrue(labelDrawn(panel, key), when + ": the step's node " + key + " has its label at scale " + camera.scale());
        OverviewMap map = panel.overview();
        Bounds m = panel.canvas().sceneToLocal(map.localToScene(map.getLayoutBounds()));
        assertFalse(map.isVisible() && m.intersects(px[0], px[1], px[2], px[3]), when + ": the step's node under the map");
    }

    private static boolean labelDrawn(GraphPanel panel, String key) {
        return DrawnText.labelOf(panel, key);
    }
}
