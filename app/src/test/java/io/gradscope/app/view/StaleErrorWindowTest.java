package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** An error refers to the text that ran: undoing the line that caused it takes the marker, the panel and the status line away. */
class StaleErrorWindowTest extends WindowFixture {
    @Test
    void undoingTheWrongLineClearsItsError(FxRobot robot) throws Exception {
        Path mlp = Path.of("../assets/examples/mlp.grad");
        openAndWait(robot, mlp);
        String good = Files.readString(mlp);
        int lines = (int) good.lines().count();
        robot.interact(() -> {
            window.editor().area().requestFocus();
            window.editor().area().moveTo(window.editor().area().getLength());
        });
        robot.write("z = rleu(loss)\n");
        ctrl(robot, KeyCode.ENTER);
        waitUntil("the run's error", () -> !vm().running().get() && vm().error().get() != null);
        assertEquals(lines + 1, window.editor().errorLine());
        assertTrue(window.editor().errorLabel().isVisible());
        String errorStatus = vm().status().get();
        assertTrue(errorStatus.contains("line " + (lines + 1)), errorStatus);
        // Undo until the text is the file's again: nothing points at the line that is gone.
        for (int i = 0; i < 40 && !window.editor().area().getText().equals(good); i++) {
            ctrl(robot, KeyCode.Z);
        }
        assertEquals(good, window.editor().area().getText());
        assertNull(vm().error().get());
        assertEquals(0, window.editor().errorLine());
        assertFalse(window.editor().errorLabel().isVisible());
        assertFalse(vm().status().get().startsWith("Error"), vm().status().get());
        // The text is the file's, which is what the run on screen ran: the status says so, not "edited since".
        assertTrue(vm().status().get().startsWith("The text is that of the run on screen again"), vm().status().get());
        // Redo brings the text that failed back, and its error with it.
        while (!window.editor().area().getText().equals(good + "z = rleu(loss)\n") && window.editor().area().isRedoAvailable()) {
            robot.press(KeyCode.CONTROL, KeyCode.SHIFT, KeyCode.Z).release(KeyCode.Z, KeyCode.SHIFT, KeyCode.CONTROL);
            org.testfx.util.WaitForAsyncUtils.waitForFxEvents();
        }
        assertNotNull(vm().error().get());
        assertEquals(lines + 1, window.editor().errorLine());
        assertEquals(errorStatus, vm().status().get());
    }
}
