package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import javafx.scene.control.TextField;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** Another program opened, the Find field no longer holds the last one's query ("h7000" stayed: trial 4, finding 12). */
class FindClearedOnOpenWindowTest extends WindowFixture {

    @Test
    void openingAnotherProgramClearsTheFindField(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        TextField find = robot.lookup("#find").queryAs(TextField.class);
        robot.interact(() -> find.setText("logits"));
        openText(robot, "other.grad", "x = input(4, 8)\nw = param(8, 3)\nloss = sum(x @ w)\n");
        assertEquals("", readFx(find::getText));
    }
}
