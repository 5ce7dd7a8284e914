package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.TradeOff;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * The trade-off curve keeps its marks off its labels: the current choice's ring (8 px, at the
 * highest peak with no extra compute) stays right of the y axis and its labels, and the x axis'
 * caption is said whole.
 */
class TradeOffLabelsWindowTest extends WindowFixture {

    @Test
    void theRingsStayInsideTheAxesAndTheCaptionIsWhole(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/residual_checkpoint.grad"));
        waitUntil("the memory track", () -> vm().memory().track().get() != null);
        robot.clickOn("#memory-tradeoff-toggle");
        waitUntil("the trade-off", () -> vm().memory().tradeOff().get() != null && window.memoryPanel().tradeOffChart().data() != null);
        settleLayout(robot);
        TradeOffChart chart = window.memoryPanel().tradeOffChart();
        TradeOff t = readFx(chart::data);
        java.util.List<TradeOff.Point> points = new java.util.ArrayList<>(t.named());
        points.addAll(t.curve());
        points.add(t.current());
        for (TradeOff.Point p : points) {
            double[] at = readFx(() -> chart.at(p));
            // The ring: 8 px and a 2 px stroke around its point.
            assertTrue(at[0] - 9 >= TradeOffChart.LEFT, p.label() + "'s ring crosses the y axis at x " + at[0]);
            assertTrue(at[1] - 9 >= TradeOffChart.TOP, p.label() + "'s ring above the plot at y " + at[1]);
        }
        double plotW = readFx(chart::getWidth) - TradeOffChart.LEFT - 16;
        String caption = TradeOffChart.caption(plotW - 2 * TradeOffChart.INSET - 2 * (TradeOffChart.textWidth("100%") + 8));
        assertEquals(TradeOffChart.CAPTIONS[0], caption, "at the window's size the whole caption fits (" + plotW + " px)");
        assertTrue(TradeOffChart.caption(10).isEmpty(), "nothing rather than a caption cut");
        // The legend: whole where it fits, else a shorter one whole, never one cut.
        double full = TradeOffChart.textWidth(TradeOffChart.LEGENDS[0]);
        assertEquals(TradeOffChart.LEGENDS[0], TradeOffChart.legend(full));
        String shorter = TradeOffChart.legend(full - 1);
        assertTrue(!shorter.equals(TradeOffChart.LEGENDS[0]) && TradeOffChart.textWidth(shorter) <= full - 1, shorter);
        assertTrue(TradeOffChart.legend(10).isEmpty(), "nothing rather than a legend cut");
    }
}
