package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import javafx.scene.input.KeyCode;
import org.fxmisc.richtext.CodeArea;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * While the sweep plays, moving about the focused editor with the keyboard (Ctrl+Home, Page Down) is the
 * user's activity as typing is: the next step leaves the view where the user took it. It was scrolled
 * back to the step's line within a second, the caret left out of view (trial 4, finding 4).
 */
class PlayingCaretMoveWindowTest extends WindowFixture {

    @Test
    void aCaretMoveWhilePlayingKeepsTheView(FxRobot robot) {
        openText(robot, "chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        CodeArea area = window.editor().area();
        robot.interact(() -> {
            sweep().jumpTo(2);
            area.requestFocus();
        });
        waitUntil("the step's line far down in view", () -> area.firstVisibleParToAllParIndex() > 100);
        robot.press(KeyCode.CONTROL).press(KeyCode.HOME).release(KeyCode.HOME).release(KeyCode.CONTROL);
        long moved = System.nanoTime();
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(0, readFx(area::getCurrentParagraph), "the caret at the top");
        // A step of the play just after the key.
        stepPlayingWithinTypingPause(robot, moved);
        settleLayout(robot);
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> sweep().pause());
        assertTrue(window.editor().currentLine() > 100, "the step's line is highlighted, far down");
        assertEquals(0, readFx(area::firstVisibleParToAllParIndex), "the view stays at the caret, at the top");
    }
}
