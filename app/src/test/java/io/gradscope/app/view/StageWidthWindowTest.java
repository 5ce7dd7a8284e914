package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A test that narrows the window gives its width back without a stack trace in the log: widened
 * while shown, Monocle's software pipeline reused a pixel buffer of the narrower window ("Too small
 * int buffer size 1200x780 [936000] > 858000", from the render thread), in 2 runs of MemoryPanelTest in 3.
 */
class StageWidthWindowTest extends WindowFixture {

    @Test
    void narrowingTheWindowAndGivingItsWidthBackLogsNothing(FxRobot robot) {
        openText(robot, "small.grad", "x = input(4, 8)\nw = param(8, 3)\nloss = sum(relu(x @ w))\n");
        double width = stage.getWidth();
        PrintStream err = System.err;
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        System.setErr(new PrintStream(seen, true));
        try {
            for (int i = 0; i < 6; i++) {
                robot.interact(stage::show);
                robot.interact(() -> stage.setWidth(width - 100));
                waitForFrames(robot);
                restoreWidth(robot, width);
                robot.interact(stage::show);
                waitForFrames(robot);
            }
        } finally {
            System.setErr(err);
        }
        assertEquals(width, stage.getWidth(), 0.5);
        assertFalse(seen.toString().contains("Too small"), seen.toString());
    }

    /** Lets the render thread draw a few frames at the size set. */
    private static void waitForFrames(FxRobot robot) {
        for (int k = 0; k < 3; k++) {
            WaitForAsyncUtils.waitForFxEvents();
            robot.sleep(50);
        }
    }
}
