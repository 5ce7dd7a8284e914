package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.Sweep;
import java.nio.file.Path;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** The README's stepping keys (→ ← Space) step whatever transport control was clicked last, and keep their text meaning in text. */
class SteppingKeysWindowTest extends WindowFixture {
    private static final Path MLP = Path.of("../assets/examples/mlp.grad");

    @Test
    void theGraphHasTheFocusAtFirst(FxRobot robot) {
        openAndWait(robot, MLP);
        assertSame(window.graphPanel(), stage.getScene().getFocusOwner());
        robot.type(KeyCode.RIGHT);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(0, sweep().cursor().get());
    }

    @Test
    void arrowStepsAfterClickingBackward(FxRobot robot) {
        openAndWait(robot, MLP);
        robot.clickOn("#mode-forward");
        robot.clickOn("#mode-backward");
        assertEquals(Sweep.Mode.BACKWARD, sweep().mode().get());
        int before = sweep().cursor().get();
        robot.type(KeyCode.RIGHT);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(Sweep.Mode.BACKWARD, sweep().mode().get(), "→ steps; it does not pick the other pass");
        assertEquals(before + 1, sweep().cursor().get());
        robot.type(KeyCode.RIGHT);
        robot.type(KeyCode.LEFT);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(before + 1, sweep().cursor().get());
    }

    @Test
    void arrowAndSpaceWorkAfterClickingStepAndTheDtypeBox(FxRobot robot) {
        openAndWait(robot, MLP);
        robot.clickOn("Step ▶");
        assertEquals(0, sweep().cursor().get());
        robot.type(KeyCode.RIGHT);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(1, sweep().cursor().get());
        // A combo box with the focus: Space plays instead of opening it.
        javafx.scene.Node combo = robot.lookup(n -> n instanceof javafx.scene.control.ComboBox).query();
        robot.interact(combo::requestFocus);
        robot.type(KeyCode.SPACE);
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(sweep().playing().get(), "Space plays");
        robot.type(KeyCode.SPACE);
        WaitForAsyncUtils.waitForFxEvents();
        assertFalse(sweep().playing().get(), "Space pauses");
    }

    @Test
    void inTheEditorTheArrowsMoveTheCaret(FxRobot robot) {
        openAndWait(robot, MLP);
        robot.interact(() -> {
            window.editor().area().requestFocus();
            window.editor().area().moveTo(0);
        });
        int before = sweep().cursor().get();
        robot.type(KeyCode.RIGHT);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(before, sweep().cursor().get(), "no step while typing");
        assertEquals(1, window.editor().area().getCaretPosition());
    }
}
