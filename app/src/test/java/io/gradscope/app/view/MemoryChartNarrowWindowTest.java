package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * At 1024 × 700 the memory chart's axis numbers, its caption and the peak's label are drawn whole
 * inside the chart: the table beside it left the chart 110 px, the caption cut to "- - reserve" and
 * the peak's label running off its right edge. The recomputed nodes' legend under the policy reads whole too
 * (it was cut to "10 …"): the second row wraps it onto a line of its own.
 */
class MemoryChartNarrowWindowTest extends WindowFixture {

    @Test
    void at1024By700TheChartsLabelsAreInside(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/residual_checkpoint.grad"));
        double width = stage.getWidth();
        double height = stage.getHeight();
        try {
            resizeWindow(robot, 1024, 700);
            MemoryChart chart = window.memoryPanel().chart();
            waitUntil("the memory timeline drawn", () -> window.viewModel().memory().track().get() != null
                    && chart.texts().stream().anyMatch(t -> t.text().equals("0")));
            settleLayout(robot);
            robot.interact(() -> {
                double w = chart.getWidth();
                List<MemoryChart.Placed> texts = chart.texts();
                for (MemoryChart.Placed t : texts) {
                    assertTrue(t.x0() >= -0.5 && t.x1() <= w + 0.5, "'" + t.text() + "' from " + t.x0() + " to " + t.x1()
                            + " inside the chart, 0 to " + w);
                }
                String peak = io.gradscope.engine.alloc.HeapLimit.human(window.viewModel().memory().track().get().timeline().peakBytes());
                for (String wanted : new String[] {"0", "reserved", peak}) {
                    assertTrue(texts.stream().anyMatch(t -> t.text().contains(wanted)), "'" + wanted + "' drawn: " + texts);
                }
            });
            // The second row's legend of the recomputed nodes reads whole ("10 recomputed", not "10 …"), inside the panel.
            javafx.scene.control.Label legend = window.memoryPanel().recomputedLegend();
            waitUntil("the recomputed nodes' legend", () -> legend.isVisible() && legend.getText().endsWith(" recomputed"));
            settleLayout(robot);
            robot.interact(() -> {
                String drawn = legend.lookupAll(".text").stream().filter(n -> n instanceof javafx.scene.text.Text)
                        .map(n -> ((javafx.scene.text.Text) n).getText()).findFirst().orElse("");
                assertTrue(drawn.equals(legend.getText()), "'" + legend.getText() + "' drawn as '" + drawn + "'");
                double right = window.memoryPanel().localToScene(window.memoryPanel().getLayoutBounds()).getMaxX();
                double end = legend.localToScene(legend.getLayoutBounds()).getMaxX();
                assertTrue(end <= right + 0.5, "the legend ends at " + end + ", the panel at " + right);
            });
        } finally {
            restoreSize(robot, width, height);
        }
    }
}
