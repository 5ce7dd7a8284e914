package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.Tensor;
import javafx.scene.Scene;
import javafx.scene.paint.Color;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;

@ExtendWith(ApplicationExtension.class)
class HeatmapTest {
    private Heatmap map;

    @Start
    void start(Stage stage) {
        map = new Heatmap("Value");
        stage.setScene(new Scene(map, 400, 400));
        stage.show();
    }

    @Test
    void theColourScaleDivergesAroundZero() {
        assertEquals(Heatmap.MID, Heatmap.color(0, 5));
        assertEquals(Heatmap.POS, Heatmap.color(5, 5));
        assertEquals(Heatmap.NEG, Heatmap.color(-5, 5));
        Color half = Heatmap.color(2.5, 5);
        assertTrue(half.getRed() > half.getBlue(), "positive values lean red");
    }

    @Test
    void aLargeTensorIsDrawnInBlocksOfBoundedSize(FxRobot robot) {
        double[] v = new double[4096 * 1024];
        v[123_456] = Double.NaN;
        robot.interact(() -> map.show(Tensor.of(v, 4096, 1024), ""));
        double[] size = map.canvasSize();
        assertTrue(size[0] <= 400 && size[1] <= 400, size[0] + " x " + size[1]);
        assertTrue(map.statsText().contains("NaN 1"), map.statsText());
    }

    @Test
    void aLongRowOrColumnIsDrawnThickEnoughToSee(FxRobot robot) {
        double[] v = new double[1000];
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.sin(i);
        }
        robot.interact(() -> map.show(Tensor.of(v, 1, 1000), ""));
        double[] row = map.canvasSize();
        assertTrue(row[1] >= Heatmap.MIN_THICKNESS && row[0] <= 220 + 1e-9, "a [1, 1000] row drawn " + row[0] + " x " + row[1]);
        robot.interact(() -> map.show(Tensor.of(v, 1000, 1), ""));
        double[] column = map.canvasSize();
        assertTrue(column[0] >= Heatmap.MIN_THICKNESS && column[1] <= 220 + 1e-9, "a [1000, 1] column drawn " + column[0] + " x " + column[1]);
        // Square cells where both sides hold enough of them.
        robot.interact(() -> map.show(Tensor.of(new double[40 * 40], 40, 40), ""));
        double[] square = map.canvasSize();
        assertEquals(square[0], square[1], 1e-9);
    }

    @Test
    void aHigherRankTensorShowsOneSliceAtATime(FxRobot robot) {
        double[] v = new double[2 * 3 * 4];
        for (int i = 0; i < v.length; i++) {
            v[i] = i;
        }
        robot.interact(() -> map.show(Tensor.of(v, 2, 3, 4), ""));
        double[] size = map.canvasSize();
        assertEquals(4 * 18, size[0], 1e-9);
        assertEquals(3 * 18, size[1], 1e-9);
        assertTrue(map.statsText().contains("(24 values)"), map.statsText());
    }

    @Test
    void nanIsShownAsNaNAndTheSkippedValuesAreCounted(FxRobot robot) {
        robot.interact(() -> map.show(Tensor.of(new double[] {1, Double.NaN, 3, Double.POSITIVE_INFINITY}, 2, 2), ""));
        String stats = map.statsText();
        assertTrue(stats.startsWith("min 1.000   max 3.000   mean 2.000"), stats);
        assertTrue(stats.contains("(min, max, mean of 2 finite; 2 skipped)"), stats);
        assertTrue(stats.contains("L2 norm NaN"), stats);
        assertTrue(stats.contains("NaN 1   +Inf 1"), stats);
        assertTrue(!stats.contains("–"), "no dash for NaN: " + stats);
        robot.interact(() -> map.show(Tensor.of(new double[] {Double.NaN}, 1), ""));
        assertTrue(map.statsText().startsWith("min NaN   max NaN   mean NaN"), map.statsText());
    }
}
