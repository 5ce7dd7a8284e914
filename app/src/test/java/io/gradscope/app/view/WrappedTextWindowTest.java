package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import javafx.geometry.Bounds;
import javafx.scene.control.Label;
import javafx.scene.control.SplitPane;
import javafx.scene.text.Text;
import org.fxmisc.richtext.CodeArea;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * Text the user needs reads whole: an example's teaching comment wraps inside the editor (it was cut at
 * the pane's edge, about 45 characters in); the memory panel's summary keeps to at most two lines at
 * 1024 × 700 and with the editor widened (squeezed beside the controls it wrapped to a word a line).
 */
class WrappedTextWindowTest extends WindowFixture {

    @Test
    void aLongCommentWrapsInsideTheEditor(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        settleLayout(robot);
        robot.interact(() -> {
            CodeArea area = window.editor().area();
            int line = 2; // "# cross_entropy's VJP is (softmax(logits) − onehot(y)) / N: one fused step instead of a"
            String text = area.getParagraph(line).getText();
            assertTrue(text.length() > 80, text);
            Bounds pane = area.localToScreen(area.getLayoutBounds());
            int start = area.getAbsolutePosition(line, 0);
            Bounds last = area.getCharacterBoundsOnScreen(start + text.length() - 1, start + text.length()).orElseThrow();
            assertTrue(last.getMaxX() <= pane.getMaxX() + 0.5, "the comment's last character ends at x " + last.getMaxX()
                    + ", the editor at " + pane.getMaxX());
            assertTrue(area.getParagraphLinesCount(line) > 1, "the comment is drawn on one line of " + pane.getWidth() + " px");
        });
    }

    @Test
    void aWrappedLinesNumberStandsBesideItsFirstRow(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        settleLayout(robot);
        robot.interact(() -> {
            CodeArea area = window.editor().area();
            int line = 2; // wraps (aLongCommentWrapsInsideTheEditor)
            assertTrue(area.getParagraphLinesCount(line) > 1, "line " + (line + 1) + " wraps");
            Bounds first = area.getCharacterBoundsOnScreen(area.getAbsolutePosition(line, 0), area.getAbsolutePosition(line, 1)).orElseThrow();
            Label number = (Label) area.lookupAll(".lineno").stream()
                    .filter(n -> n instanceof Label l && l.getText().trim().equals(Integer.toString(line + 1))).findFirst().orElseThrow();
            Text t = (Text) number.lookup(".text");
            Bounds drawn = t.localToScreen(t.getLayoutBounds());
            double middle = (drawn.getMinY() + drawn.getMaxY()) / 2;
            assertTrue(middle > first.getMinY() && middle < first.getMaxY(), "line " + (line + 1) + "'s number is drawn from y "
                    + drawn.getMinY() + " to " + drawn.getMaxY() + ", its first row from " + first.getMinY() + " to " + first.getMaxY());
        });
    }

    @Test
    void theMemorySummaryKeepsToTwoLinesNarrowAndBesideAWideEditor(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/residual_checkpoint.grad"));
        double width = stage.getWidth();
        double height = stage.getHeight();
        try {
            resizeWindow(robot, 1024, 700);
            Label summary = robot.lookup("#memory-summary").queryAs(Label.class);
            waitUntil("the memory summary", () -> summary.getText().startsWith("peak "));
            settleLayout(robot);
            assertAtMostTwoLines(robot, summary, "at 1024 x 700");
            // The editor widened: the graph and memory column at its narrowest.
            robot.interact(() -> {
                javafx.scene.Node n = window.editor();
                while (!(n instanceof SplitPane)) {
                    n = n.getParent();
                }
                ((SplitPane) n).setDividerPositions(0.6, 0.7);
            });
            settleLayout(robot);
            assertAtMostTwoLines(robot, summary, "with the editor widened to " + window.editor().getWidth() + " px");
        } finally {
            restoreSize(robot, width, height);
        }
    }

    private static void assertAtMostTwoLines(FxRobot robot, Label summary, String when) {
        robot.interact(() -> {
            Text probe = new Text("Xg");
            probe.setFont(summary.getFont());
            double line = probe.getLayoutBounds().getHeight();
            double drawn = summary.lookupAll(".text").stream().filter(n -> n instanceof Text)
                    .mapToDouble(n -> n.getLayoutBounds().getHeight()).max().orElse(0);
            assertTrue(drawn > 0 && drawn < 2.5 * line, when + ": the summary '" + summary.getText() + "' is drawn "
                    + drawn + " px tall, " + line + " px a line, in " + summary.getWidth() + " px");
            Bounds panel = summary.getParent().localToScene(summary.getParent().getLayoutBounds());
            Bounds s = summary.localToScene(summary.getLayoutBounds());
            assertTrue(s.getMaxX() <= panel.getMaxX() + 0.5, when + ": the summary ends at " + s.getMaxX() + ", its row at " + panel.getMaxX());
        });
    }
}
