package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.MemoryTrack;
import io.gradscope.app.viewmodel.RecomputeMarks;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.app.viewmodel.TradeOff;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.trace.TraceEvent;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javafx.geometry.Point2D;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The memory panel headless: it shows the run, the peak row selects its node and line, stepping moves
 * its cursor; stepping into a checkpoint segment walks through its recomputed ops, which the graph
 * outlines; the trade-off curve and a compared run.
 */
class MemoryPanelTest extends WindowFixture {
    private void open(FxRobot robot) throws Exception {
        robot.interact(() -> window.viewModel().open(Path.of("../assets/examples/residual_checkpoint.grad")));
        waitUntil(() -> !window.viewModel().running().get()
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
        assertEquals(chart.xOf(at), chart.cursorX(), 1e-9, "the cursor line is at the step's event");
        assertEquals(draws, chart.draws(), "a step moves the cursor line without redrawing the timeline");
        // Click late in the timeline: the sweep goes there.
        MemoryTrack t = window.viewModel().memory().track().get();
        int target = t.events() - 2;
        Point2D p = chart.localToScreen(chart.xOf(target), chart.getHeight() / 2);
        robot.clickOn(p);
        WaitForAsyncUtils.waitForFxEvents();
        int step = window.viewModel().sweep().cursor().get();
        assertTrue(step >= window.viewModel().sweep().steps() - 2, "clicked near the end, the sweep is at step " + step);
    }

    @Test
    void steppingIntoASegmentShowsARecomputeStepAndTheGraphOutlinesExactlyTheRecomputedNodes(FxRobot robot) throws Exception {
        open(robot);
        Sweep sweep = window.viewModel().sweep().recorded().get();
        // Independently: the vertices of the ops the engine ran again, from the trace.
        List<TraceEvent> events = sweep.run().trace().events();
        Set<Integer> rerun = new HashSet<>();
        for (TraceEvent e : events) {
            if (e instanceof TraceEvent.Recompute r) {
                rerun.add(sweep.graph().indexOf(r.node()));
            }
        }
        assertTrue(rerun.size() >= 4, "the two checkpoint blocks' ops: " + rerun);
        for (int v = 0; v < sweep.graph().size(); v++) {
            String style = window.graphPanel().styleOf("v" + v);
            assertTrue(style != null, "v" + v + " is drawn");
            assertEquals(rerun.contains(v), style.contains("stroke-color: " + RecomputeMarks.COLOUR), "v" + v + ": " + style);
        }
        assertEquals(rerun.size() + " recomputed", window.memoryPanel().recomputedLegend().getText());
        assertTrue(window.memoryPanel().recomputedLegend().getTooltip().getText().contains("outlined"),
                "the legend's tooltip says how the graph shows them");
        robot.interact(() -> window.graphPanel().requestFocus());
        int presses = 0;
        while (sweep.recomputeAt(window.viewModel().sweep().cursor().get()) == null) {
            assertTrue(presses++ < sweep.steps(Sweep.Mode.BACKWARD), "the sweep reaches a recompute step");
            robot.type(KeyCode.RIGHT);
            WaitForAsyncUtils.waitForFxEvents();
        }
        int step = window.viewModel().sweep().cursor().get();
        TraceEvent.Recompute r = sweep.recomputeAt(step);
        String where = window.transport().where().getText();
        assertTrue(where.contains("recomputing " + r.op() + " (segment " + (r.segment() + 1) + ")"), where);
        // Shown whole, not cut short with an ellipsis ("recomputing add (seg…"), in a window of the usual width.
        // (The fixture's window is that width: not widened here, which could put a stack trace in the log: WindowFixture.restoreWidth.)
        assertEquals(1200, stage.getWidth(), 0.5, "a window of the usual width");
        double barHeight = window.transport().getHeight();
        WaitForAsyncUtils.waitForFxEvents();
        String shown = robot.from(window.transport().where()).lookup(".text").query() instanceof javafx.scene.text.Text t ? t.getText() : null;
        assertEquals(where, shown, "the step's description as drawn");
        assertEquals(barHeight, window.transport().getHeight(), 0.5, "the bar keeps its height when the description wraps");
        assertEquals(events.indexOf(r), window.viewModel().memory().cursorEvent().get(), "the timeline's cursor is on the recompute");
        int v = sweep.graph().indexOf(r.node());
        assertEquals(v, window.viewModel().sweep().currentVertex());
        assertTrue(window.graphPanel().styleOf("v" + v).contains("stroke-color: " + io.gradscope.app.draw.Looks.CURRENT_STROKE),
                "the recomputed node is drawn as the current one: " + window.graphPanel().styleOf("v" + v));
        assertTrue(robot.lookup("#inspector-name").queryLabeled().getText().equals(sweep.graph().vertex(v).title()));
        assertTrue(robot.lookup(n -> n instanceof javafx.scene.control.Labeled l && l.isVisible() && l.getText() != null
                && l.getText().startsWith("Recomputing " + r.op() + " (segment ")).tryQuery().isPresent(), "the inspector says it is recomputed");
        // Said whole, never cut ("its value is made ag..."): the note as drawn is the note.
        javafx.scene.control.Labeled note = robot.lookup(n -> n instanceof javafx.scene.control.Labeled l && l.isVisible() && l.getText() != null
                && l.getText().startsWith("Recomputing ")).queryLabeled();
        String drawn = readFx(() -> ((javafx.scene.text.Text) note.lookup(".text")).getText());
        assertEquals(note.getText(), drawn, "the recompute note as drawn");
        // The next step goes on (through the segment's other recomputed ops, then the backward steps); the node is outlined again.
        robot.type(KeyCode.RIGHT);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(step + 1, window.viewModel().sweep().cursor().get());
        if (window.viewModel().sweep().currentVertex() != v) {
            assertTrue(window.graphPanel().styleOf("v" + v).contains("stroke-color: " + RecomputeMarks.COLOUR));
        }
    }

    @Test
    void theTradeOffCurveShowsAndAPointRunsItsPolicyAndACompareRunIsDrawnOverTheTimeline(FxRobot robot) throws Exception {
        open(robot);
        robot.clickOn("#memory-tradeoff-toggle");
        waitUntil(() -> window.viewModel().memory().tradeOff().get() != null);
        WaitForAsyncUtils.waitForFxEvents();
        TradeOffChart curve = window.memoryPanel().tradeOffChart();
        assertTrue(curve.getScene() != null && curve.isVisible() && curve.getHeight() > 60, "the curve replaces the timeline");
        assertTrue(window.memoryPanel().chart().getScene() == null);
        TradeOff t = curve.data();
        assertEquals(window.viewModel().memory().tradeOff().get(), t);
        assertEquals(RematPolicy.SEGMENTS, t.current().policy());
        // A click on the 'none' point runs without recomputation.
        TradeOff.Point none = t.named().get(0);
        double[] at = curve.at(none);
        robot.clickOn(curve.localToScreen(at[0], at[1]));
        waitUntil(() -> !window.viewModel().running().get()
                && window.viewModel().memory().tradeOff().get() != null
                && window.viewModel().memory().tradeOff().get().current().policy().equals(RematPolicy.NONE));
        assertEquals(RematPolicy.NONE, window.viewModel().remat().get());
        assertEquals("none", robot.lookup("#memory-policy").queryComboBox().getValue());
        // Back to the timeline; compare with √n: its run is drawn over this one.
        robot.clickOn("#memory-tradeoff-toggle");
        robot.interact(() -> robot.lookup("#memory-compare").<String>queryComboBox().setValue("sqrt"));
        waitUntil(() -> window.memoryPanel().chart().overlay() != null);
        assertTrue(window.memoryPanel().chart().getScene() != null);
        assertEquals(RematPolicy.SQRT, window.memoryPanel().chart().overlay().policy());
        long independent = io.gradscope.engine.run.Program.load(Path.of("../assets/examples/residual_checkpoint.grad"))
                .run(new io.gradscope.engine.run.RunOptions(window.viewModel().dtype().get(), 0, java.util.Map.of()),
                        new io.gradscope.engine.run.MemoryOptions(RematPolicy.SQRT, false), (a, b, c) -> { })
                .timeline().peakBytes();
        assertEquals(independent, window.memoryPanel().chart().overlay().peak(), "the compared run's peak");
    }

    /** The legend names every category at any width the chart gets: no name past the edge, none over another. */
    @Test
    void theChartsLegendKeepsEveryNameApartAndInside(FxRobot robot) {
        double widest = 0;
        for (double[] p : MemoryChart.legendPlaces(10_000)) {
            widest = Math.max(widest, p[2]);
        }
        for (double w = widest + 8; w <= 900; w += 7) {
            double[][] places = MemoryChart.legendPlaces(w);
            assertEquals(MemoryChart.STACK.length, places.length);
            for (int i = 0; i < places.length; i++) {
                assertTrue(places[i][0] >= 0 && places[i][0] + places[i][2] <= w, "item " + i + " inside at width " + w);
                for (int j = 0; j < i; j++) {
                    boolean sameRow = places[i][1] == places[j][1];
                    boolean apart = places[j][0] + places[j][2] < places[i][0] || places[i][0] + places[i][2] < places[j][0];
                    assertTrue(!sameRow || apart, "items " + j + " and " + i + " overlap at width " + w);
                }
            }
        }
        assertEquals(1, places(MemoryChart.legendPlaces(900)), "one row when wide");
        assertTrue(places(MemoryChart.legendPlaces(widest + 8)) > 1, "wrapped when narrow");
    }

    /** The peak's label beside its line stays right of the y axis and inside the chart, wherever the peak is. */
    @Test
    void thePeakLabelNeverRunsLeftOfTheAxisNorPastTheEdge(FxRobot robot) {
        double width = 420;
        for (double tw : new double[] {40, 90, 160}) {
            for (double x = MemoryChart.LEFT; x <= width - 10; x += 3) {
                for (boolean left : new boolean[] {true, false}) {
                    double x0 = MemoryChart.labelX(x, tw, left, width);
                    assertTrue(x0 > MemoryChart.LEFT && x0 + tw < width, "a label " + tw + " wide at " + x + (left ? " (left)" : "") + ": " + x0);
                }
            }
        }
        // Where there is room it sits beside the line, on the side asked for.
        assertEquals(300 - 6 - 90, MemoryChart.labelX(300, 90, true, width), 1e-9);
        assertEquals(100 + 6, MemoryChart.labelX(100, 90, false, width), 1e-9);
    }

    /** The live-at-peak table's line column shows a four-digit line whole, not "1…", and its bytes column a size whole ("512 bytes", not "512 by…"). */
    @Test
    void thePeakTableShowsFourDigitLinesWhole(FxRobot robot) {
        openText(robot, "chain.grad", io.gradscope.app.cli.BenchUiPrograms.program(io.gradscope.app.cli.BenchUiPrograms.Shape.CHAIN, 1200));
        waitUntil("the memory track", () -> window.viewModel().memory().track().get() != null
                && !window.memoryPanel().table().getItems().isEmpty());
        double width = stage.getWidth();
        robot.interact(() -> stage.setWidth(1100));
        WaitForAsyncUtils.waitForFxEvents();
        List<String> shown = new java.util.ArrayList<>();
        for (javafx.scene.Node n : robot.lookup("#memory-peak-table .table-cell").queryAll()) {
            if (n instanceof javafx.scene.control.TableCell<?, ?> c && c.getTableColumn() != null && "line".equals(c.getTableColumn().getText())
                    && c.getItem() instanceof String line && line.length() == 4) {
                javafx.scene.Node text = c.lookup(".text");
                shown.add(line + "=" + (text instanceof javafx.scene.text.Text t ? t.getText() : null));
            }
            if (n instanceof javafx.scene.control.TableCell<?, ?> c && c.getTableColumn() != null && "bytes".equals(c.getTableColumn().getText())
                    && c.getItem() instanceof String size && !size.isEmpty()) {
                javafx.scene.Node text = c.lookup(".text");
                shown.add(size + "=" + (text instanceof javafx.scene.text.Text t ? t.getText() : null));
            }
        }
        restoreWidth(robot, width);
        assertTrue(shown.stream().anyMatch(x -> x.matches("\\d{4}=.*")), "rows with four-digit lines are shown: " + shown);
        assertTrue(shown.stream().anyMatch(x -> x.contains("bytes=")), "rows with sizes under 1 KiB are shown: " + shown);
        for (String s : shown) {
            String[] p = s.split("=");
            assertEquals(p[0], p.length > 1 ? p[1] : null, "the line or size as drawn");
        }
    }

    private static int places(double[][] places) {
        return (int) java.util.Arrays.stream(places).mapToDouble(p -> p[1]).distinct().count();
    }
}
