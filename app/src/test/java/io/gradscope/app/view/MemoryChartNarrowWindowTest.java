package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * At 1024 × 700 the memory chart's axis numbers, its caption and the peak's label are drawn whole
 * inside the chart: the table beside it left the chart 110 px, the caption cut to "- - reserve" and
 * the peak's label running off its right edge.
 */
class MemoryChartNarrowWindowTest extends WindowFixture {

    @Test
    void at1024By700TheChartsLabelsAreInside(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/residual_checkpoint.grad"));
        double width = stage.getWidth();
        double height = stage.getHeight();
        try {
            toSmallest(robot);
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
                String peak = io.gradscope.engine.memory.HeapLimit.human(window.viewModel().memory().track().get().timeline().peakBytes());
                for (String wanted : new String[] {"0", "reserved", peak}) {
                    assertTrue(texts.stream().anyMatch(t -> t.text().contains(wanted)), "'" + wanted + "' drawn: " + texts);
                }
            });
        } finally {
            restoreSize(robot, width, height);
        }
    }
}
