package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.input.KeyCode;
import org.fxmisc.richtext.CodeArea;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Edited without running again, the editor's step highlight stays on the step's statement: lines
 * added above move it down, and a step whose line was changed marks no line at all (never a line
 * that is not the step's). Checked against the text itself: the highlighted line holds the statement
 * that ran.
 */
class StepLineAfterEditWindowTest extends WindowFixture {
    @Test
    void theStepsLineFollowsTheEditsAndAnEditedLineIsNotMarked(FxRobot robot) throws Exception {
        Path mlp = Path.of("../assets/examples/mlp.grad");
        openAndWait(robot, mlp);
        List<String> ran = Files.readAllLines(mlp);
        CodeArea area = window.editor().area();
        robot.interact(() -> sweep().jumpTo(1));
        int before = window.editor().currentLine();
        assertTrue(before > 0);
        assertEquals(List.of(before), highlighted(area));
        // Two lines typed at the top (no run): the highlight moves down with its statement at once.
        robot.interact(() -> {
            area.requestFocus();
            area.moveTo(0);
        });
        robot.write("# a note\n# another\n");
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(List.of(before + 2), highlighted(area));
        // The inspector names the line where it is now, at once, and the one that ran.
        assertTrue(inspectorOp(robot).endsWith(" · line " + (before + 2) + " (" + before + " when run)"), inspectorOp(robot));
        // Every step of the backward pass marks the line holding its statement, or, for a statement
        // edited since, none.
        int edited = 13; // "logits = h @ W2 + b2" in the file: changed below
        robot.interact(() -> area.replaceText(edited + 2 - 1, 0, edited + 2 - 1, area.getParagraph(edited + 1).length(),
                "logits = h @ W2 + b2 + 0"));
        WaitForAsyncUtils.waitForFxEvents();
        // A line of the run shown from elsewhere (a memory table row, Jump to origin) is found the same way.
        robot.interact(() -> window.editor().showLine(12));
        assertEquals(ran.get(11), readFx(() -> area.getSelectedText()));
        assertEquals(14, readFx(() -> area.getCurrentParagraph()) + 1);
        robot.interact(() -> window.editor().showLine(edited));
        assertEquals(14, readFx(() -> area.getCurrentParagraph()) + 1, "the edited line is not shown as the run's");
        robot.interact(() -> window.graphPanel().requestFocus());
        int marked = 0;
        int unmarked = 0;
        robot.interact(() -> sweep().toStart());
        for (int step = 0; step < sweep().steps(); step++) {
            robot.type(KeyCode.RIGHT);
            WaitForAsyncUtils.waitForFxEvents();
            int line = readFx(() -> sweep().vertex(sweep().currentVertex()).line());
            List<Integer> lines = highlighted(area);
            if (line == edited || line <= 0) {
                assertEquals(List.of(), lines, "step " + step + " of line " + line + ": no line is its");
                assertTrue(line <= 0 || inspectorOp(robot).endsWith(" · line " + edited + " when run (edited since)"), inspectorOp(robot));
                unmarked += line == edited ? 1 : 0;
            } else {
                assertEquals(List.of(line + 2), lines, "step " + step + " of line " + line);
                assertEquals(ran.get(line - 1), readFx(() -> area.getParagraph(line + 1).getText()));
                marked++;
            }
            assertEquals(lines.isEmpty() ? 0 : lines.get(0), window.editor().currentLine());
        }
        assertTrue(marked > 3 && unmarked >= 2, marked + " marked, " + unmarked + " of the edited line");
        // Undone back to the text that ran: the lines are the run's again.
        for (int i = 0; i < 40 && !readFx(area::getText).equals(String.join("\n", ran) + "\n"); i++) {
            robot.interact(area::undo);
        }
        robot.interact(() -> sweep().jumpTo(1));
        assertEquals(List.of(before), highlighted(area));
        assertTrue(inspectorOp(robot).endsWith(" · line " + before), inspectorOp(robot));
    }

    private static String inspectorOp(FxRobot robot) {
        return readFx(() -> robot.lookup("#inspector-op").queryAs(javafx.scene.control.Label.class).getText());
    }

    /** The 1-based lines whose paragraphs carry the step's highlight now. */
    static List<Integer> highlighted(CodeArea area) {
        return readFx(() -> {
            List<Integer> out = new ArrayList<>();
            for (int p = 0; p < area.getParagraphs().size(); p++) {
                if (area.getParagraph(p).getParagraphStyle().contains("current-line")) {
                    out.add(p + 1);
                }
            }
            return out;
        });
    }
}
