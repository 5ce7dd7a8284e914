package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * A long program (over {@link ProgramEditor#DEFERRED_CHARS}) goes into the editor after the next
 * frame, beside its run, so a window opened on it shows at once (TestFX + Monocle); a short one at once.
 */
class LongProgramEditorWindowTest extends WindowFixture {
    private static String chain(int lines) {
        StringBuilder sb = new StringBuilder("x = input(4, 8)\nh0 = sin(x)\n");
        for (int i = 1; i < lines; i++) {
            sb.append("h").append(i).append(" = sin(h").append(i - 1).append(") * 0.999\n");
        }
        return sb.append("loss = sum(h").append(lines - 1).append(")\n").toString();
    }

    @Test
    void aLongProgramFillsTheEditorAfterTheNextFrameAndAShortOneAtOnce(FxRobot robot) {
        String longText = chain(6000);
        assertTrue(longText.length() > ProgramEditor.DEFERRED_CHARS, "long enough: " + longText.length());
        String[] right = new String[3];
        robot.interact(() -> {
            right[2] = window.editor().area().getText();
            vm().openText("long.grad", longText);
            right[0] = window.editor().area().getText();
        });
        assertEquals(right[2], right[0], "not filled in the same event as the open");
        waitUntil("the long program in the editor", () -> window.editor().area().getText().equals(longText));
        assertFalse(window.editor().area().isUndoAvailable(), "opening is not an edit");
        waitUntil("the long program's run", () -> !vm().running().get());
        String shortText = chain(5);
        robot.interact(() -> {
            vm().openText("short.grad", shortText);
            right[1] = window.editor().area().getText();
        });
        assertNotEquals(longText, right[1]);
        assertEquals(shortText, right[1], "a short program is in the editor at once");
    }
}
