package io.gradscope.app.view;

import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.TensorStats;
import java.util.Arrays;
import java.util.Locale;
import javafx.geometry.Insets;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Label;
import javafx.scene.control.Spinner;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.paint.CycleMethod;
import javafx.scene.paint.LinearGradient;
import javafx.scene.paint.Stop;

/**
 * A tensor as a heatmap on a diverging scale (blue below zero, white at zero, red above), with a
 * legend, its statistics, and for rank above 2 a selector for the 2-D slice shown.
 */
public final class Heatmap extends VBox {
    static final Color NEG = Color.web("#2166ac");
    static final Color MID = Color.web("#f7f7f7");
    static final Color POS = Color.web("#b2182b");
    private static final double MAX_SIDE = 220;

    private final Label title = new Label();
    private final Canvas canvas = new Canvas(0, 0);
    private final Canvas legend = new Canvas(90, 10);
    private final Label legendText = new Label();
    private final Label stats = new Label();
    private final Spinner<Integer> slice = new Spinner<>(0, 0, 0);
    private final HBox sliceRow = new HBox(6, new Label("slice"), slice);
    private Tensor tensor;
    private double[] values = new double[0];

    public Heatmap(String heading) {
        super(4);
        title.setText(heading);
        title.getStyleClass().add("heading");
        stats.getStyleClass().add("stats");
        stats.setWrapText(true);
        slice.setPrefWidth(80);
        slice.setEditable(true);
        slice.valueProperty().addListener((o, a, b) -> draw());
        sliceRow.setVisible(false);
        sliceRow.setManaged(false);
        setPadding(new Insets(4, 0, 8, 0));
        getChildren().addAll(title, sliceRow, canvas, new HBox(6, legend, legendText), stats);
    }

    public void setHeading(String heading) {
        title.setText(heading);
    }

    /** The statistics line shown under the map (for tests and tooltips). */
    public String statsText() {
        return stats.getText();
    }

    public Tensor tensor() {
        return tensor;
    }

    /** Shows a tensor, or a note when there is none. */
    public void show(Tensor t, String note) {
        tensor = t;
        if (t == null) {
            values = new double[0];
            stats.setText(note);
            sliceRow.setVisible(false);
            sliceRow.setManaged(false);
            canvas.setWidth(0);
            canvas.setHeight(0);
            legendText.setText("");
            legend.getGraphicsContext2D().clearRect(0, 0, legend.getWidth(), legend.getHeight());
            return;
        }
        values = t.toDoubleArray();
        int slices = slices(t.shape());
        boolean many = slices > 1;
        sliceRow.setVisible(many);
        sliceRow.setManaged(many);
        ((javafx.scene.control.SpinnerValueFactory.IntegerSpinnerValueFactory) slice.getValueFactory()).setMax(Math.max(0, slices - 1));
        if (slice.getValue() >= slices) {
            slice.getValueFactory().setValue(0);
        }
        stats.setText(statsLine(TensorStats.of(values)));
        draw();
    }

    static String statsLine(TensorStats s) {
        return String.format(Locale.ROOT, "min %s   max %s   mean %s%nL2 norm %s   (%d values)%nNaN %d   +Inf %d   −Inf %d",
                num(s.min()), num(s.max()), num(s.mean()), num(s.l2()), s.count(), s.nan(), s.posInf(), s.negInf());
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        return String.format(Locale.ROOT, "%.4g", v);
    }

    private static int slices(int[] shape) {
        int n = 1;
        for (int i = 0; i < shape.length - 2; i++) {
            n *= shape[i];
        }
        return n;
    }

    private void draw() {
        if (tensor == null) {
            return;
        }
        int[] s = tensor.shape();
        int rows = s.length >= 2 ? s[s.length - 2] : 1;
        int cols = s.length >= 1 ? s[s.length - 1] : 1;
        int per = rows * cols;
        int offset = s.length > 2 ? slice.getValue() * per : 0;
        double[] shown = per == 0 ? new double[0] : Arrays.copyOfRange(values, Math.min(offset, values.length),
                Math.min(offset + per, values.length));
        double maxAbs = 0;
        for (double v : shown) {
            if (Double.isFinite(v)) {
                maxAbs = Math.max(maxAbs, Math.abs(v));
            }
        }
        double cell = Math.max(2, Math.min(18, Math.min(MAX_SIDE / Math.max(cols, 1), MAX_SIDE / Math.max(rows, 1))));
        canvas.setWidth(cols * cell);
        canvas.setHeight(rows * cell);
        GraphicsContext g = canvas.getGraphicsContext2D();
        g.clearRect(0, 0, canvas.getWidth(), canvas.getHeight());
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                int i = r * cols + c;
                if (i >= shown.length) {
                    continue;
                }
                g.setFill(color(shown[i], maxAbs));
                g.fillRect(c * cell, r * cell, cell, cell);
            }
        }
        if (cell >= 6) {
            g.setStroke(Color.web("#ffffff"));
            g.setLineWidth(0.5);
            for (int r = 0; r <= rows; r++) {
                g.strokeLine(0, r * cell, cols * cell, r * cell);
            }
            for (int c = 0; c <= cols; c++) {
                g.strokeLine(c * cell, 0, c * cell, rows * cell);
            }
        }
        GraphicsContext lg = legend.getGraphicsContext2D();
        lg.setFill(new LinearGradient(0, 0, 1, 0, true, CycleMethod.NO_CYCLE, new Stop(0, NEG), new Stop(0.5, MID), new Stop(1, POS)));
        lg.fillRect(0, 0, legend.getWidth(), legend.getHeight());
        legendText.setText("±" + num(maxAbs));
    }

    /** The diverging colour of a value, scaled by the largest magnitude shown. */
    static Color color(double v, double maxAbs) {
        if (Double.isNaN(v)) {
            return Color.web("#7f7f7f");
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? Color.web("#67001f") : Color.web("#053061");
        }
        double t = maxAbs == 0 ? 0 : Math.max(-1, Math.min(1, v / maxAbs));
        return t >= 0 ? MID.interpolate(POS, t) : MID.interpolate(NEG, -t);
    }
}
