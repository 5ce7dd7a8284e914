package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.TradeOff;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * At 1024 × 700, the trade-off curve shown: the memory panel keeps inside its column (it ran off both
 * sides, "Memory" read "emory" and the curve's peak labels lost their first digits), the chart's plot is
 * tall enough to read the curve, and the current choice's label lies inside the chart and clear of the
 * staircase, the points and the policies' labels whichever point is current (it was drawn below and
 * beside its ring whatever lay there: over the staircase going down from it, over the next points).
 */
class TradeOffRoomWindowTest extends WindowFixture {
    /** The least height of the plot (between the axes' labels), in pixels, at the window's least size. */
    static final double LEAST_PLOT_H = 70;

    @Test
    void atTheLeastSizeTheCurveKeepsInsideItsColumnTallEnoughWithItsLabelClear(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/residual_checkpoint.grad"));
        waitUntil("the memory track", () -> vm().memory().track().get() != null);
        robot.clickOn("#memory-tradeoff-toggle");
        waitUntil("the trade-off", () -> vm().memory().tradeOff().get() != null && window.memoryPanel().tradeOffChart().data() != null);
        double width = stage.getWidth();
        double height = stage.getHeight();
        try {
            resizeWindow(robot, 1024, 700);
            settleLayout(robot);
            robot.interact(() -> {
                MemoryPanel panel = window.memoryPanel();
                Node column = panel.getParent();
                while (!(column instanceof javafx.scene.control.SplitPane)) {
                    column = column.getParent(); // the graph-and-memory column (the panel's own holder grows with it)
                }
                Bounds c = column.localToScene(column.getLayoutBounds());
                Bounds p = panel.localToScene(panel.getLayoutBounds());
                assertTrue(p.getMinX() >= c.getMinX() - 0.5 && p.getMaxX() <= c.getMaxX() + 0.5,
                        "the memory panel " + p + " inside its column " + c);
                TradeOffChart chart = panel.tradeOffChart();
                Bounds t = chart.localToScene(chart.getLayoutBounds());
                assertTrue(t.getMaxX() <= c.getMaxX() + 0.5, "the chart " + t + " inside the column " + c);
                double plotH = chart.getHeight() - TradeOffChart.TOP - 30;
                assertTrue(plotH >= LEAST_PLOT_H, "the plot is " + plotH + " px tall in a chart of " + chart.getHeight());
                // Each point as the current choice in turn: its label inside the plot and clear of every mark.
                TradeOff data = chart.data();
                List<TradeOff.Point> points = new ArrayList<>(data.curve());
                points.addAll(data.named());
                try {
                    for (TradeOff.Point point : points) {
                        chart.show(new TradeOff(data.curve(), data.named(), point, data.forwardFlops()), "");
                        double[] label = chart.currentLabel();
                        String where = "the current label '" + chart.currentText() + "' " + Arrays.toString(label);
                        assertTrue(label[0] >= TradeOffChart.LEFT && label[2] <= chart.getWidth() && label[1] >= 0
                                && label[3] <= chart.getHeight() - 30, where + " inside the plot of " + chart.getWidth() + " x " + chart.getHeight());
                        for (double[] m : chart.marks()) {
                            assertTrue(!(m[0] < label[2] && m[2] > label[0] && m[1] < label[3] && m[3] > label[1]),
                                    where + " over " + Arrays.toString(m));
                        }
                    }
                } finally {
                    chart.show(data, "");
                }
            });
        } finally {
            restoreSize(robot, width, height);
        }
    }
}
