package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.draw.Camera;
import io.gradscope.app.layout.GraphLayout;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** Find on a large graph at Fit shows the node found where its label can be read, not a speck in the middle. */
class FindWindowTest extends WindowFixture {

    @Test
    void findZoomsInToAReadableSizeAndShowsTheNode(FxRobot robot) {
        openText(robot, "chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        robot.interact(() -> window.graphPanel().fit());
        Camera camera = window.graphPanel().camera();
        assertTrue(camera.scale() < GraphPanel.READABLE_SCALE, "at Fit the sections are small: " + camera.scale());
        robot.interact(() -> ((TextField) robot.lookup("#find").query()).setText("h700"));
        robot.clickOn("#find");
        robot.type(KeyCode.ENTER);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(1.0, camera.scale(), 1e-9, "zoomed in to 1:1");
        int selected = sweep().selected().get();
        String key = sweep().keyOf(selected);
        GraphLayout.Box box = window.graphPanel().currentLayout().nodes().get(key).box();
        assertTrue(camera.shows(box), key + " " + box + " in view " + camera.visible());
        // A closer view is kept: zoomed in further, Find only centres.
        robot.interact(() -> window.graphPanel().zoomIn());
        double closer = camera.scale();
        robot.interact(() -> ((TextField) robot.lookup("#find").query()).setText("h20"));
        robot.clickOn("#find");
        robot.type(KeyCode.ENTER);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(closer, camera.scale(), 1e-9);
    }
}
