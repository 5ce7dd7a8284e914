package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.Labeled;
import javafx.scene.text.Text;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * At 1024 × 700 nothing important is cut: every tab of the side panel shows (none in an overflow
 * menu), the tool bar's zoom buttons are in the window, and the step's description reads in full.
 * The window cannot be made smaller than that.
 */
class NarrowWindowTest extends WindowFixture {

    @Test
    void at1024By700TheTabsTheZoomButtonsAndTheStepReadInFull(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        double width = stage.getWidth();
        double height = stage.getHeight();
        try {
            robot.interact(() -> sweep().jumpTo(2));
            toSmallest(robot);
            double right = readFx(() -> window.localToScene(window.getLayoutBounds()).getMaxX());
            for (String tab : new String[] {"#tab-node", "#tab-hvp", "#tab-compare", "#tab-jacobian"}) {
                Bounds b = readFx(() -> {
                    Node n = window.lookup(tab);
                    return n == null || !n.isVisible() ? null : n.localToScene(n.getLayoutBounds());
                });
                assertTrue(b != null && b.getWidth() > 10, tab + " shown: " + b);
                assertTrue(b.getMaxX() <= right + 0.5, tab + " in the window: " + b + " window to " + right);
            }
            boolean overflow = readFx(() -> window.side().lookupAll(".control-buttons-tab").stream().anyMatch(n -> n.isVisible()
                    && n.localToScene(n.getLayoutBounds()).getWidth() > 1));
            assertTrue(!overflow, "the tabs' overflow menu shows");
            for (String zoom : new String[] {"+", "−", "Fit"}) {
                Bounds b = readFx(() -> robot.lookup(".tool-bar .button").match((Node n) -> n instanceof Labeled l && zoom.equals(l.getText()))
                        .query().localToScene(robot.lookup(".tool-bar .button").match((Node n) -> n instanceof Labeled l && zoom.equals(l.getText()))
                        .query().getLayoutBounds()));
                assertTrue(b.getMaxX() <= right + 0.5, zoom + " in the window: " + b);
            }
            Labeled where = robot.lookup("#transport-where").queryLabeled();
            String full = readFx(where::getText);
            assertTrue(full.startsWith("Backward step 3 of "), full);
            String shown = readFx(() -> where.lookupAll(".text").stream().filter(n -> n instanceof Text).map(n -> ((Text) n).getText())
                    .findFirst().orElse(""));
            assertEquals(full, shown.replace("\n", " ").trim(), "the step's description, as drawn");
            assertTrue(stage.getMinWidth() >= 1000 && stage.getMinHeight() >= 650, "the smallest window: " + stage.getMinWidth() + " x " + stage.getMinHeight());
        } finally {
            restoreSize(robot, width, height);
        }
    }
}
