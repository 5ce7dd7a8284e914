package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A file opened in place of another that fails to parse, or parses and fails to run, leaves nothing
 * of the other's run on screen: no graph, nothing to step or inspect, no memory, Jacobian or tangent
 * choices of it. Its error is beside its line, its text stays, and the transport comes back once a
 * run of it succeeds.
 */
class FailedOpenWindowTest extends WindowFixture {
    @TempDir
    Path dir;

    @Test
    void aFileThatDoesNotParseLeavesNoGraphOfTheOneBefore(FxRobot robot) throws Exception {
        String bad = "a = param(3)\nb = rleu(a)\nloss = sum(b)\n";
        Path file = dir.resolve("bad.grad");
        Files.writeString(file, bad);
        steppedThenOpened(robot, file);
        assertEquals(2, window.editor().errorLine());
        assertNothingOfTheRunBefore(robot, bad);
        // Fixed and run, it is stepped as usual.
        robot.interact(() -> window.editor().area().replaceText(bad.replace("rleu", "relu")));
        robot.interact(() -> vm().run());
        waitUntil("the fixed text's run", () -> !vm().running().get() && sweep().recorded().get() != null);
        assertFalse(readFx(() -> robot.lookup("#transport-step").queryAs(Button.class).isDisabled()));
        assertNull(vm().error().get());
        assertNotNull(window.graphPanel().scene());
        robot.interact(() -> sweep().stepForward());
        assertEquals(3, window.editor().currentLine(), "the backward pass's first step is the objective's");
        // mlp.grad's run is no "previous run" of this text.
        robot.interact(() -> vm().diagnostics().comparisons().compareWithPrevious());
        assertNull(vm().diagnostics().comparisons().comparison().get());
        assertTrue(vm().status().get().startsWith("No previous run"), vm().status().get());
    }

    @Test
    void aFileThatFailsToRunLeavesNoGraphOfTheOneBefore(FxRobot robot) throws Exception {
        // Parses; the shapes do not match at line 3.
        String bad = "a = param(3)\nb = param(4)\nc = a + b\nloss = sum(c)\n";
        Path file = dir.resolve("shapes.grad");
        Files.writeString(file, bad);
        steppedThenOpened(robot, file);
        assertEquals(3, window.editor().errorLine());
        assertNothingOfTheRunBefore(robot, bad);
    }

    /** Opens mlp.grad, steps into its backward pass and selects a node, then opens {@code file}. */
    private void steppedThenOpened(FxRobot robot, Path file) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        robot.interact(() -> {
            for (int i = 0; i < 4; i++) {
                sweep().stepForward();
            }
        });
        waitUntil("the memory track of mlp.grad", () -> vm().memory().track().get() != null);
        assertTrue(window.editor().currentLine() > 0);
        assertFalse(vm().jacobian().outputs().isEmpty());
        openAndWait(robot, file);
        assertNotNull(vm().error().get(), vm().status().get());
    }

    private void assertNothingOfTheRunBefore(FxRobot robot, String text) {
        assertEquals(text, readFx(() -> window.editor().area().getText()), "the user's text stays");
        assertTrue(window.editor().errorLabel().isVisible());
        assertNull(sweep().recorded().get());
        assertNull(sweep().layout().get());
        assertEquals(-1, sweep().inspectedVertex());
        assertNull(window.graphPanel().scene(), "the graph before is not drawn");
        assertEquals(0, window.editor().currentLine(), "no line is the step's");
        assertEquals("No run yet", readFx(() -> robot.lookup("#inspector-name").queryAs(Label.class).getText()));
        assertEquals("No run yet", readFx(() -> window.transport().where().getText()));
        for (String id : new String[] {"#transport-start", "#transport-back", "#play", "#transport-step", "#transport-end"}) {
            assertTrue(readFx(() -> robot.lookup(id).queryAs(Button.class).isDisabled()), id + " disabled");
        }
        assertNull(vm().memory().track().get());
        assertEquals(-1, vm().memory().cursorEvent().get());
        assertEquals(0, vm().memory().recomputed().count());
        assertTrue(vm().jacobian().outputs().isEmpty());
        assertEquals(-1, vm().jacobian().output().get());
        assertTrue(vm().derivatives().leaves().isEmpty());
        assertNull(vm().diagnostics().gradient(0));
        // The stepping keys step nothing, and no line of the new text is marked as a step's.
        robot.interact(() -> window.graphPanel().requestFocus());
        robot.type(KeyCode.RIGHT, KeyCode.RIGHT);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(-1, sweep().cursor().get());
        assertEquals(0, window.editor().currentLine());
        assertNull(window.graphPanel().scene());
    }
}
