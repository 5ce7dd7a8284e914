package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import javafx.geometry.Bounds;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * Opening the section that holds the current step's node (a step into it opens it) keeps that node
 * in view: the opened section kept its place on screen, so the view showed its first sub-section and
 * the current node's was out of view until the next step brought it back.
 */
class OpenCurrentSectionWindowTest extends WindowFixture {

    @Test
    void openingTheSectionOfTheCurrentNodeKeepsTheCurrentNodeInView(FxRobot robot) {
        openText(robot, "chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        GraphPanel panel = window.graphPanel();
        // The step's node was folded in a section: the step opens it (the node is drawn as itself).
        stepIntoSectionAtFit(robot);
        String section = readFx(() -> sweep().layout().get().source().hierarchy().chain(sweep().currentVertex()).get(0));
        assertTrue(section.contains("§"), "the current node is in a section: " + section);
        robot.interact(() -> {
            panel.drawNow();
            String key = sweep().keyOf(sweep().currentVertex());
            assertFalse(key.equals("g:" + section), "the section opened: " + key);
            double[] px = panel.boxOnScreen(key);
            var camera = panel.camera();
            assertTrue(px[0] >= 0 && px[1] >= 0 && px[0] + px[2] <= camera.width() && px[1] + px[3] <= camera.height(),
                    "the current node " + key + " at " + java.util.Arrays.toString(px) + " in the view " + camera.width() + " x " + camera.height());
            OverviewMap map = panel.overview();
            Bounds m = panel.canvas().sceneToLocal(map.localToScene(map.getLayoutBounds()));
            assertFalse(map.isVisible() && m.intersects(px[0], px[1], px[2], px[3]), "the current node under the map " + m);
        });
    }
}
