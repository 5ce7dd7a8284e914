package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.MemoryTrack;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.geometry.Point2D;
import javafx.scene.Scene;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The memory panel headless: it shows the run, the peak row selects its node and line, stepping moves its cursor. */
@ExtendWith(ApplicationExtension.class)
class MemoryPanelTest {
    private MainWindow window;

    @Start
    void start(Stage stage) {
        window = new MainWindow();
        Scene scene = new Scene(window, 1200, 800);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
    }

    private void open(FxRobot robot) throws Exception {
        robot.interact(() -> window.viewModel().open(Path.of("../assets/examples/residual_checkpoint.grad")));
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !window.viewModel().running().get()
                && window.viewModel().memory().track().get() != null);
        WaitForAsyncUtils.waitForFxEvents();
    }

    @Test
    void thePanelShowsTheRunsMemory(FxRobot robot) throws Exception {
        open(robot);
        MemoryPanel panel = window.memoryPanel();
        assertTrue(panel.isVisible() && panel.getHeight() > 80, "height " + panel.getHeight());
        assertTrue(robot.lookup("#memory-chart").query().isVisible());
        MemoryTrack t = window.viewModel().memory().track().get();
        assertEquals(t.liveAtPeak().size(), panel.table().getItems().size());
        assertTrue(panel.summaryLabel().getText().startsWith("peak "), panel.summaryLabel().getText());
        assertEquals("segments", robot.lookup("#memory-policy").queryComboBox().getValue());
    }

    @Test
    void thePeakRowSelectsItsNodeAndItsLine(FxRobot robot) throws Exception {
        open(robot);
        MemoryPanel panel = window.memoryPanel();
        List<MemoryTrack.Row> rows = panel.table().getItems();
        int row = 0;
        while (rows.get(row).vertex() < 0 || rows.get(row).line() <= 0) {
            row++;
        }
        int r = row;
        robot.interact(() -> panel.table().getSelectionModel().select(r));
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(rows.get(r).vertex(), window.viewModel().sweep().selected().get(), "the row's node is selected in the graph");
        assertEquals(rows.get(r).title(), robot.lookup("#inspector-name").queryLabeled().getText());
        int caretLine = window.editor().area().getCurrentParagraph() + 1;
        assertEquals(rows.get(r).line(), caretLine, "the editor shows the row's line");
    }

    @Test
    void steppingMovesTheCursorAndClickingTheTimelineMovesTheSweep(FxRobot robot) throws Exception {
        open(robot);
        MemoryChart chart = window.memoryPanel().chart();
        robot.interact(() -> window.graphPanel().requestFocus());
        int draws = chart.draws();
        robot.type(KeyCode.RIGHT);
        robot.type(KeyCode.RIGHT);
        WaitForAsyncUtils.waitForFxEvents();
        int at = window.viewModel().memory().cursorEvent().get();
        assertTrue(at > 0, "the cursor is at step 1's event");
        assertTrue(chart.draws() > draws, "the chart redrew its cursor");
        // Click late in the timeline: the sweep goes there.
        MemoryTrack t = window.viewModel().memory().track().get();
        int target = t.events() - 2;
        Point2D p = chart.localToScreen(chart.xOf(target), chart.getHeight() / 2);
        robot.clickOn(p);
        WaitForAsyncUtils.waitForFxEvents();
        int step = window.viewModel().sweep().cursor().get();
        assertTrue(step >= window.viewModel().sweep().steps() - 2, "clicked near the end, the sweep is at step " + step);
    }
}
