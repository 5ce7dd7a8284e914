package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.layout.GridPane;
import javafx.scene.text.Text;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * The inspector's health table reads as a table: each count's digits end where its column's heading
 * ends (the text as drawn, not the cells), and the headings ("−", "0", "+", …) stand on the same line
 * as the table's title "health" (they sat 2-3 px above it, centred in the taller title's row).
 */
class HealthColumnsWindowTest extends WindowFixture {

    @Test
    void eachCountEndsUnderItsHeading(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        robot.interact(() -> {
            sweep().stepForward();
            sweep().stepForward();
        });
        GridPane health = robot.lookup("#health").queryAs(GridPane.class);
        waitUntil("the health rows", () -> health.getChildren().size() >= 14);
        settleLayout(robot);
        robot.interact(() -> {
            List<String> checked = new ArrayList<>();
            double titleBaseline = baseline(cell(health, 0, 0));
            for (int c = 1; c <= 6; c++) {
                assertEquals(titleBaseline, baseline(cell(health, c, 0)), 0.5, "the heading '" + cell(health, c, 0).getText()
                        + "' stands on the title's line");
                Bounds head = drawn(cell(health, c, 0));
                for (int r = 1; r <= 2; r++) {
                    Label count = cell(health, c, r);
                    Bounds b = drawn(count);
                    assertEquals(head.getMaxX(), b.getMaxX(), 1.0, "column " + c + ": the heading '" + cell(health, c, 0).getText()
                            + "' ends at x " + head.getMaxX() + ", row " + r + "'s count '" + count.getText() + "' at " + b.getMaxX());
                    checked.add(count.getText());
                }
            }
            assertEquals(12, checked.size(), checked.toString());
        });
    }

    private static Label cell(GridPane grid, int column, int row) {
        for (Node n : grid.getChildren()) {
            Integer c = GridPane.getColumnIndex(n);
            Integer r = GridPane.getRowIndex(n);
            Integer span = GridPane.getColumnSpan(n);
            if ((c == null ? 0 : c) == column && (r == null ? 0 : r) == row && (span == null || span == 1) && n instanceof Label l) {
                return l;
            }
        }
        throw new AssertionError("no cell at column " + column + ", row " + row);
    }

    /** The y of the label's text baseline, in scene coordinates. */
    private static double baseline(Label l) {
        Text t = (Text) l.lookup(".text");
        return t.localToScene(0, t.getLayoutBounds().getMinY() + t.getBaselineOffset()).getY();
    }

    /** The label's text as drawn, in scene coordinates. */
    private static Bounds drawn(Label l) {
        Text t = (Text) l.lookup(".text");
        assertTrue(t != null && !t.getText().isEmpty(), "label '" + l.getText() + "' draws its text");
        return t.localToScene(t.getLayoutBounds());
    }
}
