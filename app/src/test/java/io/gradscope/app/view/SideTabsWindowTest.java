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

    /** Puts {@code text} in the editor and runs it (Ctrl+Enter's path), waiting for the run to end. */
    private void runEdited(FxRobot robot, String text) {
        robot.interact(() -> window.editor().area().replaceText(text));
        robot.interact(() -> vm().run());
        waitUntil("the run to end", () -> !vm().running().get());
    }

    /** The text a combo box shows in its button (what the user sees, whatever its value). */
    private static String shown(FxRobot robot, String id) {
        ComboBox<?> box = robot.lookup(id).queryAs(ComboBox.class);
        // The button cell as drawn: looked up, not asked of the skin (getDisplayNode() would refresh it first).
        javafx.scene.Node cell = robot.lookup(id + " .list-cell").queryAll().stream().filter(n -> n.getParent() == box)
                .findFirst().orElseThrow();
        return ((javafx.scene.control.ListCell<?>) cell).getText();
    }

    /** A re-run with the same leaves, after a failed one, keeps the Jacobian's choices, and the choosers still show them (not blank). */
    @Test
    void theJacobianTabsChoosersShowTheirChoicesAfterARerun(FxRobot robot) {
        openText(robot, "first.grad", FIRST);
        robot.clickOn("Jacobian");
        waitUntil("the Jacobian tab", () -> window.side().built("tab-jacobian"));
        waitUntil("the first Jacobian", () -> vm().jacobian().result().get() != null && !vm().jacobian().running().get());
        String leaf = vm().jacobian().leaf().get();
        assertTrue(leaf != null && List.of("w", "b").contains(leaf), "a leaf is chosen: " + leaf);
        assertEquals(leaf, shown(robot, "#jacobian-wrt"), "the leaf is shown");
        // Edited and run as the user does: a mistake first (its run fails, the last run stays on screen), then the
        // same program with another batch: the same leaves, other shapes.
        runEdited(robot, FIRST.replace("x @ w", "x @ w @ w"));
        assertTrue(vm().error().get() != null, "the mistake is reported");
        runEdited(robot, FIRST.replace("input(2, 3)", "input(5, 3)"));
        waitUntil("the second Jacobian", () -> vm().jacobian().result().get() != null && !vm().jacobian().running().get());
        assertEquals(leaf, vm().jacobian().leaf().get(), "the leaf is kept");
        org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        assertEquals(leaf, shown(robot, "#jacobian-wrt"), "the kept leaf is shown after the re-run");
        assertTrue(window.side().getSelectionModel().getSelectedItem().getId().equals("tab-jacobian"),
                "the tab the user chose is kept: " + window.side().getSelectionModel().getSelectedItem().getText());
    }
}
