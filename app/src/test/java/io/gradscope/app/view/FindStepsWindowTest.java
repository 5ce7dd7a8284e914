package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** Find in the tool bar: Enter moves on, Shift+Enter back, the count beside the field; ops match too. */
class FindStepsWindowTest extends WindowFixture {
    private static final Path RESNET = Path.of("../engine/src/test/resources/onnx/resnet/model.onnx");

    private String count(FxRobot robot) {
        return readFx(() -> robot.lookup("#find-count").queryLabeled().getText());
    }

    private void type(FxRobot robot, String query) {
        robot.interact(() -> ((TextField) robot.lookup("#find").query()).setText(query));
        robot.clickOn("#find");
    }

    @Test
    void enterAndShiftEnterStepThroughTheMatches(FxRobot robot) {
        openText(robot, "muls.grad", "x = input(4)\nw = param(4)\na = x * w\nb = a * w\nc = b * w\nloss = sum(c)\n");
        type(robot, "mul");
        assertEquals("", count(robot), "nothing asked yet");
        robot.type(KeyCode.ENTER);
        assertEquals("1 of 3", count(robot));
        assertEquals("a", readFx(() -> sweep().vertex(sweep().selected().get()).title()));
        robot.type(KeyCode.ENTER);
        robot.type(KeyCode.ENTER);
        assertEquals("3 of 3", count(robot));
        assertEquals("c", readFx(() -> sweep().vertex(sweep().selected().get()).title()));
        robot.press(KeyCode.SHIFT).type(KeyCode.ENTER).release(KeyCode.SHIFT);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("2 of 3", count(robot));
        assertEquals("b", readFx(() -> sweep().vertex(sweep().selected().get()).title()));
        // Edited, the query starts again.
        robot.type(KeyCode.BACK_SPACE);
        assertEquals("", count(robot));
    }

    @Test
    void convFindsTheModelsConvolutions(FxRobot robot) {
        openAndWait(robot, RESNET);
        type(robot, "conv");
        robot.type(KeyCode.ENTER);
        String c = count(robot);
        assertTrue(c.startsWith("1 of ") && Integer.parseInt(c.substring(5)) > 1, c);
        String first = readFx(() -> sweep().vertex(sweep().selected().get()).op());
        assertTrue(first.toLowerCase().contains("conv") || readFx(() -> sweep().vertex(sweep().selected().get()).title()).contains("conv"), first);
    }
}
