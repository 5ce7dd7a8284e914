package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import javafx.scene.input.KeyCode;
import org.fxmisc.richtext.CodeArea;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A copy of the step's highlighted line pasted elsewhere (or the line cut and pasted) does not bring the
 * highlight with it: one line is highlighted, the step's, also after stepping on. The editor had copied
 * the line's paragraph style with its text, and the pasted line stayed yellow for good (trial 4, finding 1).
 */
class PastedStepLineWindowTest extends WindowFixture {

    @Test
    void aPastedCopyOfTheStepsLineIsNotHighlighted(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        CodeArea area = window.editor().area();
        robot.interact(() -> sweep().jumpTo(3));
        int line = window.editor().currentLine();
        assertTrue(line > 0);
        assertEquals(List.of(line), StepLineAfterEditWindowTest.highlighted(area));
        // The line copied, then pasted on a new line after it (no run).
        robot.interact(() -> {
            area.requestFocus();
            area.moveTo(line - 1, 0);
            area.selectRange(line - 1, 0, line - 1, area.getParagraph(line - 1).length());
            area.copy();
            area.moveTo(line - 1, area.getParagraph(line - 1).length());
            area.insertText(area.getCaretPosition(), "\n");
            area.paste();
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(area.getParagraph(line - 1).getText(), readFx(() -> area.getParagraph(line).getText()), "pasted");
        assertEquals(List.of(line), StepLineAfterEditWindowTest.highlighted(area), "only the step's line");
        // Stepping on moves the one highlight.
        robot.interact(() -> window.graphPanel().requestFocus());
        robot.type(KeyCode.LEFT);
        WaitForAsyncUtils.waitForFxEvents();
        List<Integer> after = StepLineAfterEditWindowTest.highlighted(area);
        assertTrue(after.size() <= 1 && !after.contains(line + 1), "one highlight at most, never the copy: " + after);
        // The step's line cut and pasted at the end: the moved text is not highlighted either.
        robot.interact(() -> sweep().jumpTo(3));
        int now = window.editor().currentLine();
        assertEquals(List.of(now), StepLineAfterEditWindowTest.highlighted(area));
        robot.interact(() -> {
            area.selectRange(now - 1, 0, now, 0);
            area.cut();
            area.moveTo(area.getLength());
            area.paste();
        });
        WaitForAsyncUtils.waitForFxEvents();
        int moved = readFx(() -> area.getParagraphs().size());
        List<Integer> marked = StepLineAfterEditWindowTest.highlighted(area);
        int current = window.editor().currentLine();
        assertEquals(current > 0 ? List.of(current) : List.of(), marked, "the step's line, where the editor finds it now, and no other");
        assertTrue(!marked.contains(moved - 1) || current == moved - 1, "the moved text is not highlighted: " + marked);
    }
}
