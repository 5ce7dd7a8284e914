package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.draw.Camera;
import io.gradscope.app.layout.GraphLayout;
import java.util.ArrayList;
import java.util.List;
import javafx.geometry.Bounds;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * At 1024 × 700 the overview map takes at most a quarter of the graph pane's width and height, and
 * what Fit shows of a large graph (the section the step opened) lies clear of it: the map took a
 * third of the pane and covered the section's corner.
 */
class OverviewRoomWindowTest extends WindowFixture {

    @Test
    void atTheSmallestWindowTheMapIsSmallAndFitShowsTheSectionBesideIt(FxRobot robot) {
        openText(robot, "chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        double width = stage.getWidth();
        double height = stage.getHeight();
        try {
            resizeWindow(robot, 1024, 700);
            GraphPanel panel = window.graphPanel();
            stepIntoSectionAtFit(robot);
            settleLayout(robot);
            robot.interact(() -> {
                panel.fitAsked();
                panel.drawNow();
            });
            settleLayout(robot);
            robot.interact(() -> {
                Camera camera = panel.camera();
                OverviewMap map = panel.overview();
                assertTrue(map.isVisible(), "Fit shows a part of the graph: the map is shown");
                Bounds m = panel.canvas().sceneToLocal(map.localToScene(map.getLayoutBounds()));
                assertTrue(m.getWidth() <= 0.25 * camera.width() + 1 && m.getHeight() <= 0.25 * camera.height() + 1,
                        "the map " + m + " within a quarter of the pane " + camera.width() + " x " + camera.height());
                List<String> shown = new ArrayList<>();
                GraphLayout.Box node = box(panel, sweep().keyOf(sweep().currentVertex()));
                for (GraphLayout.GroupBox g : panel.currentLayout().groups()) {
                    GraphLayout.Box b = g.box();
                    double[] px = {camera.toPxX(b.x()), camera.toPxY(b.y()), b.w() * camera.scale(), b.h() * camera.scale()};
                    boolean holdsNode = b.x() <= node.x() && b.y() <= node.y() && b.x() + b.w() >= node.x() + node.w()
                            && b.y() + b.h() >= node.y() + node.h();
                    if (holdsNode && px[0] >= 0 && px[1] >= 0 && px[0] + px[2] <= camera.width() && px[1] + px[3] <= camera.height()) {
                        shown.add(g.path());
                        assertFalse(m.intersects(px[0], px[1], px[2], px[3]),
                                "the section Fit shows, " + g.path() + " " + java.util.Arrays.toString(px) + ", under the map " + m);
                    }
                }
                assertFalse(shown.isEmpty(), "Fit shows a section holding the step's node whole");
            });
        } finally {
            restoreSize(robot, width, height);
        }
    }

    private static GraphLayout.Box box(GraphPanel panel, String key) {
        double[] b = panel.scene().box(panel.scene().indexOf(key));
        return new GraphLayout.Box(b[0], b[1], b[2], b[3]);
    }
}
