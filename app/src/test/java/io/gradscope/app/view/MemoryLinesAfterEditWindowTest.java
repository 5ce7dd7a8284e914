package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.MemoryTrack;
import java.nio.file.Path;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import org.fxmisc.richtext.CodeArea;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Edited without running again, the memory table's "line" column names each row's line where it is in
 * the text now, as the inspector does: it kept the run's numbers, so "W1 line 7" pointed at another
 * statement after two lines were added above (trial 4, finding 6).
 */
class MemoryLinesAfterEditWindowTest extends WindowFixture {

    @Test
    void theTablesLinesFollowLinesAddedAbove(FxRobot robot) throws java.io.IOException {
        Path mlp = Path.of("../assets/examples/mlp.grad");
        java.util.List<String> ran = java.nio.file.Files.readAllLines(mlp);
        openAndWait(robot, mlp);
        TableView<MemoryTrack.Row> table = window.memoryPanel().table();
        waitUntil("the live-at-peak table", () -> !table.getItems().isEmpty());
        CodeArea area = window.editor().area();
        robot.interact(() -> area.insertText(0, "# one\n# two\n"));
        WaitForAsyncUtils.waitForFxEvents();
        @SuppressWarnings("unchecked")
        TableColumn<MemoryTrack.Row, String> line = (TableColumn<MemoryTrack.Row, String>) readFx(() -> table.getColumns().get(1));
        int checked = 0;
        for (int i = 0; i < readFx(() -> table.getItems().size()); i++) {
            int row = i;
            MemoryTrack.Row r = readFx(() -> table.getItems().get(row));
            if (r.line() <= 0) {
                continue;
            }
            String shown = readFx(() -> line.getCellObservableValue(row).getValue());
            assertEquals(Integer.toString(r.line() + 2), shown, r.title() + ", line " + r.line() + " when run, now two lines down");
            assertEquals(ran.get(r.line() - 1), readFx(() -> area.getParagraph(r.line() + 2 - 1).getText()), "the line shown holds the statement run");
            checked++;
        }
        assertTrue(checked > 0, "rows with lines");
    }
}
