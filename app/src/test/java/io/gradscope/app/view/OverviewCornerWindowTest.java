package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.draw.Camera;
import io.gradscope.app.draw.GraphScene;
import java.util.ArrayList;
import java.util.List;
import javafx.geometry.Bounds;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * Zoomed in on a small graph, the overview map keeps off the drawn nodes: it goes to a corner where
 * it covers none, when there is one. It stayed in the bottom-right corner over a node (a 1 × 1000
 * program zoomed in on, the map over one of its tanh nodes).
 */
class OverviewCornerWindowTest extends WindowFixture {

    @Test
    void theMapTakesACornerWhereItCoversNoNode(FxRobot robot) {
        openText(robot, "row.grad", "w = param(1, 1000)\nloss = sum(tanh(w) * tanh(w))\n");
        GraphPanel panel = window.graphPanel();
        int n = readFx(() -> panel.scene().size());
        List<String> moved = new ArrayList<>();
        int shown = 0;
        for (double scale : new double[] {1.5, 2, 2.5}) {
            for (int i = 0; i < n; i++) {
                int node = i;
                robot.interact(() -> {
                    double[] b = panel.scene().box(node);
                    panel.camera().setScale(scale);
                    panel.camera().centerOn(b[0] + b[2] / 2, b[1] + b[3] / 2);
                    panel.drawNow();
                });
                settleLayout(robot);
                String seen = readFx(() -> {
                    OverviewMap map = panel.overview();
                    if (!map.isVisible()) {
                        return null;
                    }
                    Camera camera = panel.camera();
                    GraphScene scene = panel.scene();
                    double w = map.getPrefWidth();
                    double h = map.getPrefHeight();
                    double m = GraphPanel.MAP_MARGIN;
                    double[][] corners = {{camera.width() - m - w, camera.height() - m - h}, {m, camera.height() - m - h},
                        {camera.width() - m - w, m}, {m, m}};
                    boolean someFree = false;
                    for (double[] c : corners) {
                        someFree |= !coversNode(camera, scene, c[0], c[1], c[0] + w, c[1] + h);
                    }
                    Bounds at = panel.canvas().sceneToLocal(map.localToScene(map.getLayoutBounds()));
                    boolean covers = coversNode(camera, scene, at.getMinX() + 1, at.getMinY() + 1, at.getMaxX() - 1, at.getMaxY() - 1);
                    assertTrue(!someFree || !covers, "at scale " + scale + " on node " + scene.key(node) + " a corner is free of nodes, yet the map at "
                            + at + " covers one");
                    boolean bottomRightCovers = coversNode(camera, scene, corners[0][0], corners[0][1], corners[0][0] + w, corners[0][1] + h);
                    return bottomRightCovers && someFree ? scale + "/" + scene.key(node) : "";
                });
                if (seen != null) {
                    shown++;
                    if (!seen.isEmpty()) {
                        moved.add(seen);
                    }
                }
            }
        }
        assertTrue(shown > 0, "zoomed in, the map shows");
        assertTrue(!moved.isEmpty(), "some view had a node under the bottom-right corner and another corner free");
    }

    /** Whether a rectangle of the pane (pixels) overlaps a drawn node's box. */
    private static boolean coversNode(Camera camera, GraphScene scene, double x0, double y0, double x1, double y1) {
        for (int i = 0; i < scene.size(); i++) {
            double[] b = scene.box(i);
            double l = camera.toPxX(b[0]);
            double t = camera.toPxY(b[1]);
            double r = camera.toPxX(b[0] + b[2]);
            double d = camera.toPxY(b[1] + b[3]);
            if (l < x1 && r > x0 && t < y1 && d > y0) {
                return true;
            }
        }
        return false;
    }
}
