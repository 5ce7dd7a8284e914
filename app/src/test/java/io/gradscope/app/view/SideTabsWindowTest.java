package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import javafx.scene.control.ComboBox;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * The side tabs behind the inspector (H·v, Compare, Jacobian) are built when first shown (TestFX +
 * Monocle): not at the window's start, then with the run on screen when opened after it, and an
 * already-built tab follows the next run.
 */
class SideTabsWindowTest extends WindowFixture {
    private static final String FIRST = "x = input(2, 3)\nw = param(3, 4)\nb = param(4)\nloss = sum(tanh(x @ w + b))\n";
    private static final String SECOND = "x = input(2, 3)\nv = param(3, 5)\nloss = sum(sin(x @ v))\n";

    /** The names of the leaves with a gradient, as the derivatives view-model has them. */
    private List<String> leavesWithGradient() {
        return vm().derivatives().leaves().stream().filter(l -> l.grad()).map(l -> l.name()).toList();
    }

    @Test
    void theTabsAreBuiltWhenFirstShownWithTheRunOnScreenAndFollowTheNextRun(FxRobot robot) {
        assertFalse(window.side().built("tab-hvp"), "H·v is not built at the start");
        assertFalse(window.side().built("tab-compare"), "Compare is not built at the start");
        assertFalse(window.side().built("tab-jacobian"), "Jacobian is not built at the start");
        assertTrue(window.side().built("tab-node"), "the inspector is there from the start");
        openText(robot, "first.grad", FIRST);
        assertFalse(window.side().built("tab-hvp"), "a run builds no hidden tab");
        assertEquals(List.of("w", "b"), leavesWithGradient(), "the first program's leaves with a gradient");
        robot.clickOn("H·v");
        waitUntil("the H·v tab", () -> window.side().built("tab-hvp"));
        @SuppressWarnings("unchecked")
        ComboBox<String> leaf = robot.lookup("#hvp-leaf").queryAs(ComboBox.class);
        assertEquals(leavesWithGradient(), leaf.getItems(), "built after the run: its leaves");
        assertEquals("w", leaf.getValue());
        // The next run, with other leaves: the tab already built shows them.
        openText(robot, "second.grad", SECOND);
        assertEquals(List.of("v"), leavesWithGradient());
        assertEquals(leavesWithGradient(), leaf.getItems(), "the built tab follows the next run");
        assertEquals("v", leaf.getValue());
        assertFalse(window.side().built("tab-compare"), "showing one tab builds no other");
        robot.clickOn("Compare");
        waitUntil("the Compare tab", () -> window.side().built("tab-compare"));
        assertTrue(robot.lookup("#compare-dtypes").tryQuery().isPresent(), "the Compare tab's buttons are on screen");
        robot.clickOn("Jacobian");
        waitUntil("the Jacobian tab", () -> window.side().built("tab-jacobian"));
        assertEquals(window.side().jacobianPanel(), robot.lookup("#jacobian-panel").queryAs(JacobianPanel.class));
    }
}
