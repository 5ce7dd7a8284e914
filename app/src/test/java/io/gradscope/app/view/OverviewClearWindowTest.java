package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.draw.Camera;
import javafx.geometry.Bounds;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** Stepping on a large graph never leaves the current node under the overview map in the corner. */
class OverviewClearWindowTest extends WindowFixture {

    @Test
    void theCurrentNodeIsKeptClearOfTheOverviewMap(FxRobot robot) {
        openText(robot, "chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 300));
        robot.interact(() -> sweep().expandAll());
        waitUntil("everything expanded", () -> sweep().layout().get().collapsed().isEmpty()
                && window.graphPanel().currentLayout() == sweep().layout().get());
        GraphPanel panel = window.graphPanel();
        Camera camera = panel.camera();
        robot.interact(() -> {
            panel.fit();
            for (int i = 0; i < 4; i++) {
                panel.zoomIn();
            }
            sweep().stepForward();
        });
        for (int step = 0; step < 12; step++) {
            // Put the next step's node right under the map, as a step that lands in that corner would.
            robot.interact(() -> {
                int next = sweep().recorded().get().vertexAt(sweep().mode().get(), sweep().cursor().get() + 1);
                double[] b = panel.scene().box(panel.scene().indexOf(sweep().keyOf(next)));
                Bounds map = mapOnCanvas(panel);
                camera.centerOn(b[0] + b[2] / 2 - (map.getCenterX() - camera.width() / 2) / camera.scale(),
                        b[1] + b[3] / 2 - (map.getCenterY() - camera.height() / 2) / camera.scale());
                panel.drawNow();
            });
            robot.interact(() -> assertTrue(panel.overview().isVisible(), "zoomed in: the map is shown"));
            robot.interact(() -> sweep().stepForward());
            robot.interact(() -> {
                panel.drawNow();
                double[] px = panel.boxOnScreen(sweep().keyOf(sweep().currentVertex()));
                Bounds map = mapOnCanvas(panel);
                assertTrue(px != null && px[0] >= 0 && px[1] >= 0 && px[0] + px[2] <= camera.width() && px[1] + px[3] <= camera.height(),
                        "the current node in view");
                assertFalse(panel.overview().isVisible() && map.intersects(px[0], px[1], px[2], px[3]),
                        "the current node " + java.util.Arrays.toString(px) + " under the map " + map);
            });
        }
    }

    @Test
    void aZoomThatWouldPutTheSelectedNodeUnderTheMapMovesItClear(FxRobot robot) {
        openText(robot, "chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 300));
        robot.interact(() -> sweep().expandAll());
        waitUntil("everything expanded", () -> sweep().layout().get().collapsed().isEmpty()
                && window.graphPanel().currentLayout() == sweep().layout().get());
        GraphPanel panel = window.graphPanel();
        Camera camera = panel.camera();
        for (boolean in : new boolean[] {true, false}) {
            robot.interact(() -> {
                panel.fit();
                for (int i = 0; i < 4; i++) {
                    panel.zoomIn();
                }
                sweep().select(150);
                panel.drawNow();
                // Where the zoom about the view's centre takes the selected node: onto the map's centre.
                double[] b = panel.scene().box(panel.scene().indexOf(sweep().keyOf(150)));
                Bounds map = mapOnCanvas(panel);
                double f = in ? GraphPanel.ZOOM_STEP : 1 / GraphPanel.ZOOM_STEP;
                double px = camera.width() / 2 + (map.getCenterX() - camera.width() / 2) / f;
                double py = camera.height() / 2 + (map.getCenterY() - camera.height() / 2) / f;
                camera.centerOn(b[0] + b[2] / 2 - (px - camera.width() / 2) / camera.scale(),
                        b[1] + b[3] / 2 - (py - camera.height() / 2) / camera.scale());
                if (in) {
                    panel.zoomIn();
                } else {
                    panel.zoomOut();
                }
                panel.drawNow();
                double[] at = panel.boxOnScreen(sweep().keyOf(150));
                Bounds m = mapOnCanvas(panel);
                assertTrue(panel.overview().isVisible(), "zoomed in: the map is shown");
                assertTrue(at[0] >= 0 && at[1] >= 0 && at[0] + at[2] <= camera.width() && at[1] + at[3] <= camera.height(), "in view");
                assertFalse(m.intersects(at[0], at[1], at[2], at[3]),
                        (in ? "zoom in" : "zoom out") + ": the selected node " + java.util.Arrays.toString(at) + " under the map " + m);
            });
        }
    }

    @Test
    void theViewMenuHidesTheMapForTheRestOfTheSession(FxRobot robot) {
        openText(robot, "chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 300));
        GraphPanel panel = window.graphPanel();
        robot.interact(() -> {
            zoomedIn(panel);
            assertTrue(panel.overview().isVisible(), "zoomed in: the map is shown");
        });
        robot.clickOn("View");
        chooseInMenu(robot, "Overview Map");
        robot.interact(() -> {
            panel.drawNow();
            assertFalse(panel.overview().isVisible(), "hidden once unticked");
        });
        openText(robot, "other.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.WIDE, 300));
        robot.interact(() -> {
            zoomedIn(panel);
            assertFalse(panel.overview().isVisible(), "still hidden after another program opened");
        });
        robot.clickOn("View");
        chooseInMenu(robot, "Overview Map");
        robot.interact(() -> {
            panel.drawNow();
            assertTrue(panel.overview().isVisible(), "shown again");
        });
    }

    /** Fit, then four zoom steps in, drawn. */
    private static void zoomedIn(GraphPanel panel) {
        panel.fit();
        for (int i = 0; i < 4; i++) {
            panel.zoomIn();
        }
        panel.drawNow();
    }

    /** The overview map's bounds in the canvas's pixels. */
    private static Bounds mapOnCanvas(GraphPanel panel) {
        OverviewMap map = panel.overview();
        return panel.canvas().sceneToLocal(map.localToScene(map.getLayoutBounds()));
    }
}
