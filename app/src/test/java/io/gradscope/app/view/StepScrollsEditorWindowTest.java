package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import javafx.scene.input.KeyCode;
import org.fxmisc.richtext.CodeArea;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A step brings its line into view in the editor, whether or not the editor has the focus: scrolled
 * to it vertically, and back to the line's start when the editor was scrolled sideways past it (a long
 * line's end). Read from the area's own scroll position and visible paragraphs once laid out.
 */
class StepScrollsEditorWindowTest extends WindowFixture {
    @Test
    void aStepScrollsBackFromASidewaysScrollWhileTheEditorHasTheFocus(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        CodeArea area = window.editor().area();
        scrolledToLineEnd(robot, area, 12);
        // Stepped with the Step button (it takes no focus: the editor keeps it).
        robot.clickOn("#transport-step");
        assertStepLineInView(robot, area, "focused, the Step button");
        // Sideways again, then stepped with the graph focused (the → key).
        scrolledToLineEnd(robot, area, 12);
        robot.interact(() -> window.graphPanel().requestFocus());
        robot.type(KeyCode.RIGHT);
        assertStepLineInView(robot, area, "graph focused, →");
        // Typing goes on where the caret was: the step moved the view, not the caret.
        scrolledToLineEnd(robot, area, 12);
        int caret = readFx(area::getCaretPosition);
        robot.clickOn("#transport-step");
        assertEquals(caret, (int) readFx(area::getCaretPosition), "the caret stays where the user left it");
    }

    @Test
    void playingWhileTheUserTypesLeavesTheViewAtTheCaret(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        CodeArea area = window.editor().area();
        scrolledToLineEnd(robot, area, 12);
        robot.write(" ");
        long typed = System.nanoTime();
        double x = readFx(area::getEstimatedScrollX);
        // A step of the play just after the key.
        stepPlayingWithinTypingPause(robot, typed);
        settleLayout(robot);
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(window.editor().currentLine() > 0, "the step's line is highlighted");
        assertEquals(x, readFx(area::getEstimatedScrollX), 0.5, "the view stays at the caret");
        // Not playing, the same step moves the view.
        robot.interact(() -> {
            sweep().pause();
            sweep().stepForward();
        });
        assertStepLineInView(robot, area, "a step, not playing");
    }

    @Test
    void aStepScrollsToItsLineInALongProgramWhileTheEditorHasTheFocus(FxRobot robot) {
        StringBuilder text = new StringBuilder("x = param(4)\nh0 = tanh(x)\n");
        int n = 150;
        for (int i = 1; i < n; i++) {
            text.append("h").append(i).append(" = tanh(h").append(i - 1).append(")")
                    .append(i % 10 == 0 ? "    # " + "a long comment that goes on and on past the editor's right edge ".repeat(2) : "")
                    .append('\n');
        }
        text.append("loss = sum(h").append(n - 1).append(")\n");
        openText(robot, "long.grad", text.toString());
        CodeArea area = window.editor().area();
        // The editor at its top, holding the focus; the backward pass begins at the last line.
        robot.interact(() -> {
            area.requestFocus();
            area.moveTo(0);
            area.requestFollowCaret();
        });
        settleLayout(robot);
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(readFx(() -> area.lastVisibleParToAllParIndex()) < n, "the last line is out of view at first");
        robot.clickOn("#transport-step");
        assertStepLineInView(robot, area, "the objective's line");
        // Stepped up the chain to a line with a long comment, scrolled to its end, then stepped on.
        robot.interact(() -> sweep().jumpTo(n - 100));
        int line = window.editor().currentLine();
        scrolledToLineEnd(robot, area, line);
        robot.interact(() -> sweep().toStart());
        robot.clickOn("#transport-step");
        assertStepLineInView(robot, area, "back at the objective's line from a sideways scroll at line " + line);
    }

    /** Puts the caret at the end of {@code line} (1-based) with the editor focused: the area scrolls sideways there. */
    private void scrolledToLineEnd(FxRobot robot, CodeArea area, int line) {
        robot.interact(() -> {
            area.setWrapText(false); // Edit → Wrap Long Lines unchecked: long lines run on
            area.requestFocus();
            area.moveTo(line - 1, 0);
        });
        robot.type(KeyCode.END);
        WaitForAsyncUtils.waitForFxEvents();
        waitUntil("the editor scrolled sideways", () -> area.getEstimatedScrollX() > 40);
    }

    private void assertStepLineInView(FxRobot robot, CodeArea area, String when) {
        WaitForAsyncUtils.waitForFxEvents();
        settleLayout(robot);
        WaitForAsyncUtils.waitForFxEvents();
        int line = window.editor().currentLine();
        assertTrue(line > 0, when + ": a step's line is highlighted");
        double x = readFx(area::getEstimatedScrollX);
        int first = readFx(area::firstVisibleParToAllParIndex);
        int last = readFx(area::lastVisibleParToAllParIndex);
        assertEquals(0, x, 0.5, when + ": scrolled back to the line's start");
        assertTrue(first <= line - 1 && line - 1 <= last, when + ": line " + line + " in view (" + (first + 1) + "-" + (last + 1) + ")");
    }
}
