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
 * menu), the tool bar's zoom buttons are in the window, and the step's description reads in full,
 * drawn inside the window (the stepping buttons drop their words to make room); the inspector's text
 * wraps to its panel, even at the panel's narrowest. The window cannot be made smaller than that.
 */
class NarrowWindowTest extends WindowFixture {

    @Test
    void at1024By700TheTabsTheZoomButtonsTheStepAndTheInspectorReadInFull(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        double width = stage.getWidth();
        double height = stage.getHeight();
        javafx.scene.control.Button start = robot.lookup("#transport-start").queryButton();
        assertEquals("|◀ Start", readFx(start::getText), "the stepping buttons' words, at " + width + " wide");
        try {
            robot.interact(() -> sweep().jumpTo(2));
            resizeWindow(robot, 1024, 700);
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
            // Read in full is not enough: the label must be shown whole, inside the window, with room for its lines.
            double sceneRight = readFx(() -> stage.getScene().getWidth());
            assertTrue(readFx(window::getWidth) <= sceneRight + 0.5, "the window's content is " + readFx(window::getWidth)
                    + " wide, in a window " + sceneRight + " wide");
            assertShownWhole(where, sceneRight);
            assertEquals("|◀", readFx(start::getText), "made room for it: the buttons' symbols alone");
            assertEquals("Jump to the start (Home)", readFx(() -> start.getTooltip().getText()));
            // W1 at step 3 has received nothing yet: the inspector's note says when its first contribution comes.
            robot.interact(() -> sweep().select(sweep().recorded().get().find("W1")));
            settleLayout(robot);
            assertTrue(readFx(() -> window.inspector().lookupAll(".label").stream().anyMatch(n -> n instanceof Labeled l && l.isVisible()
                    && l.getText().startsWith("Nothing received yet: its first contribution"))), "W1's note on its gradient");
            assertInspectorShownWhole(sceneRight);
            // The side panel at its narrowest (its divider dragged right as far as it goes): the text wraps to it.
            robot.interact(() -> ((javafx.scene.control.SplitPane) window.getCenter()).setDividerPosition(1, 1.0));
            settleLayout(robot);
            double side = readFx(() -> window.side().getWidth());
            assertTrue(side <= SidePanel.MIN_WIDTH + 1, "the side panel at its narrowest: " + side);
            assertInspectorShownWhole(sceneRight);
            // So do the other tabs' controls and text (the Compare tab's buttons read "float32 vs floa...", "Cl...").
            for (String tab : new String[] {"#tab-hvp", "#tab-compare", "#tab-jacobian"}) {
                robot.interact(() -> window.side().getTabs().stream().filter(t -> tab.equals("#" + t.getId())).findFirst()
                        .ifPresent(t -> window.side().getSelectionModel().select(t)));
                // A tab shown the first time builds its panel: laid out once more once it has its width.
                settleLayout(robot);
                org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
                settleLayout(robot);
                double tabRight = readFx(() -> Math.min(sceneRight, window.side().localToScene(window.side().getLayoutBounds()).getMaxX()));
                Node content = readFx(() -> window.side().getSelectionModel().getSelectedItem().getContent());
                for (Labeled l : readFx(() -> content.lookupAll("*").stream().filter(n -> n instanceof Labeled && shown(n)
                        && !((Labeled) n).getText().isEmpty() && !(n instanceof javafx.scene.control.TableCell)).map(n -> (Labeled) n).toList())) {
                    assertShownWhole(l, tabRight);
                }
            }
            assertTrue(stage.getMinWidth() >= 1000 && stage.getMinHeight() >= 650, "the smallest window: " + stage.getMinWidth() + " x " + stage.getMinHeight());
        } finally {
            restoreSize(robot, width, height);
        }
    }

    @Test
    void at1024By700TheForwardSweepsValueAndTangentSideBySideReadInFull(FxRobot robot) {
        // Its "# open:" line: the Forward sweep carrying a tangent on x, the value and its tangent side by side.
        openAndWait(robot, Path.of("../assets/examples/course/01_dual_numbers.grad"));
        double width = stage.getWidth();
        double height = stage.getHeight();
        try {
            resizeWindow(robot, 1024, 700);
            waitUntil("the forward sweep with the tangent", () -> sweep().mode().get() == io.gradscope.app.viewmodel.Sweep.Mode.FORWARD
                    && vm().derivatives().tangent().get() != null && !vm().running().get());
            robot.interact(() -> sweep().toEnd());
            waitUntil("the value and its tangent side by side", () -> window.details().valueTangentMap().tensor() != null
                    && window.details().valueTangentMap().getParent().isVisible());
            settleLayout(robot);
            assertInspectorShownWhole(readFx(() -> stage.getScene().getWidth()));
        } finally {
            restoreSize(robot, width, height);
        }
    }

    /** Whether {@code n} and every node above it are visible. */
    private static boolean shown(Node n) {
        for (Node p = n; p != null; p = p.getParent()) {
            if (!p.isVisible()) {
                return false;
            }
        }
        return true;
    }

    /** Every label of the inspector is drawn whole, inside its panel's viewport and the window. */
    private void assertInspectorShownWhole(double sceneRight) {
        double panelRight = readFx(() -> {
            Node viewport = window.inspector().lookup(".viewport");
            return Math.min(sceneRight, viewport.localToScene(viewport.getLayoutBounds()).getMaxX());
        });
        for (Labeled l : readFx(() -> window.inspector().lookupAll(".label").stream().filter(n -> n instanceof Labeled && n.isVisible()
                && !((Labeled) n).getText().isEmpty()).map(n -> (Labeled) n).toList())) {
            assertShownWhole(l, panelRight);
        }
    }

    /**
     * {@code l} is drawn whole: left of {@code right} (the window's edge, the panel's), all its text drawn
     * (no ellipsis), and as tall as its text needs at the width it has.
     */
    private static void assertShownWhole(Labeled l, double right) {
        Bounds b = readFx(() -> l.localToScene(l.getLayoutBounds()));
        String text = readFx(l::getText);
        assertTrue(b.getMaxX() <= right + 0.5, "'" + text + "' ends at " + b.getMaxX() + ", past " + right);
        String drawn = readFx(() -> l.lookupAll(".text").stream().filter(n -> n instanceof Text).map(n -> ((Text) n).getText())
                .findFirst().orElse(""));
        assertEquals(text.replaceAll("\\s+", " ").trim(), drawn.replaceAll("\\s+", " ").trim(), "'" + text + "' as drawn (not cut short)");
        double needed = readFx(() -> l.prefHeight(l.getWidth()));
        double shown = readFx(l::getHeight);
        assertTrue(needed <= shown + 0.5, "'" + text + "' needs " + needed + " px of height at its width " + readFx(l::getWidth)
                + ", has " + shown);
        if (!l.isWrapText()) {
            double wide = readFx(() -> l.prefWidth(-1));
            assertTrue(wide <= l.getWidth() + 0.5, "'" + text + "' needs " + wide + " px of width, has " + readFx(l::getWidth));
        }
    }
}
