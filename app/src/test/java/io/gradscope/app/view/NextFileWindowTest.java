package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** What one file leaves behind when the next is opened: nothing of its own shows on the next. */
class NextFileWindowTest extends WindowFixture {
    private static final Path RESNET = Path.of("../engine/src/test/resources/onnx/resnet/model.onnx");

    private String hvpHeading() {
        return readFx(() -> ((Label) window.lookup("#hvp-map").lookup(".heading")).getText());
    }

    @SuppressWarnings("unchecked")
    private String hvpLeaf() {
        return readFx(() -> ((ComboBox<String>) window.lookup("#hvp-leaf")).getValue());
    }

    @Test
    void theHvpTabForgetsTheLastProgramsLeafWhenAModelOpens(FxRobot robot) {
        openText(robot, "09_hessian_vector.grad", Examples.text("course/09_hessian_vector"));
        robot.interact(() -> window.side().showHvp());
        waitUntil("H·v on w", () -> vm().derivatives().hvp().get() != null);
        assertEquals("H·v on w (v: random on w)", hvpHeading());
        openAndWait(robot, RESNET);
        assertNotNull(readFx(() -> sweep().recorded().get()), readFx(() -> vm().status().get()));
        String leaf = hvpLeaf();
        assertFalse("w".equals(leaf), "the model has no leaf w");
        assertEquals("H·v", hvpHeading(), "with respect to " + leaf);
    }

    @Test
    void theHvpTabForgetsTheLastProgramsLeafWhenAnotherProgramOpens(FxRobot robot) {
        openText(robot, "09_hessian_vector.grad", Examples.text("course/09_hessian_vector"));
        robot.interact(() -> window.side().showHvp());
        waitUntil("H·v on w", () -> vm().derivatives().hvp().get() != null);
        openText(robot, "mlp.grad", Examples.text("mlp"));
        assertEquals("H·v", hvpHeading(), "with respect to " + hvpLeaf());
    }
}
