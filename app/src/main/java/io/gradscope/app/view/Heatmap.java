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
    private double maxSide = MAX_SIDE;

    private final Label title = new Label();
    private final Canvas canvas = new Canvas(0, 0);
    private final Canvas legend = new Canvas(90, 10);
    private final Label legendText = new Label();
    private final Label stats = new Label();
    private final Label blockText = new Label();
    private final Label note = new Label();
    /** A line under the heading saying what the map holds (counts); hidden while empty. */
    private final Label caption = new Label();
    /** The slice selector, made when a tensor of rank above 2 is first shown (a spinner costs a step's time to build). */
    private Spinner<Integer> slice;
    private final HBox sliceRow = new HBox(6);
    private Tensor tensor;
    private double[] values = new double[0];

    public Heatmap(String heading) {
        super(4);
        title.setText(heading);
        title.getStyleClass().add("heading");
        stats.getStyleClass().add("stats");
        stats.setWrapText(true);
        sliceRow.setVisible(false);
        sliceRow.setManaged(false);
        setPadding(new Insets(4, 0, 8, 0));
        blockText.getStyleClass().add("stats");
        blockText.setManaged(false);
        note.getStyleClass().add("note");
        note.setWrapText(true);
        note.setManaged(false);
        note.setVisible(false);
        caption.getStyleClass().add("stats");
        caption.setWrapText(true);
        caption.setVisible(false);
        caption.setManaged(false);
        // Narrow (the value and its tangent side by side in a 1024-wide window), the scale's number goes under
        // the colour bar rather than being cut ("±0.1...").
        legendText.setMinWidth(Label.USE_PREF_SIZE);
        javafx.scene.layout.FlowPane legendRow = new javafx.scene.layout.FlowPane(6, 2, legend, legendText);
        legendRow.setAlignment(javafx.geometry.Pos.CENTER_LEFT);
        getChildren().addAll(title, caption, note, sliceRow, canvas, legendRow, blockText, stats);
    }

    /** The longest side of the map in pixels (220 unless two maps share a row). */
    public void setMaxSide(double side) {
        if (side != maxSide) {
            maxSide = side;
            draw();
        }
    }

    public void setHeading(String heading) {
        title.setText(heading);
    }

    /** Sets the line under the heading ("" hides it): what the map holds, as counts. */
    public void setCaption(String text) {
        caption.setText(text == null ? "" : text);
        caption.setVisible(!caption.getText().isEmpty());
        caption.setManaged(!caption.getText().isEmpty());
    }

    /** The line under the heading, or "". */
    public String captionText() {
        return caption.getText();
    }

    /** The statistics line shown under the map (for tests and tooltips). */
    public String statsText() {
        return stats.getText();
    }

    public Tensor tensor() {
        return tensor;
    }

    /** The note over the map (what a partial value is), or "". */
    public String noteText() {
        return note.getText();
    }

    /** Shows a tensor (with a note over it when {@code text} is not empty), or {@code text} alone when there is none. */
    public void show(Tensor t, String text) {
        tensor = t;
        boolean noted = t != null && text != null && !text.isEmpty();
        note.setText(noted ? text : "");
        note.setVisible(noted);
        note.setManaged(noted);
        if (t == null) {
            values = new double[0];
            stats.setText(text);
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
        if (many && slice == null) {
            slice = new Spinner<>(0, 0, 0);
            slice.setPrefWidth(80);
            slice.setEditable(true);
            slice.valueProperty().addListener((o, a, b) -> draw());
            sliceRow.getChildren().setAll(new Label("slice"), slice);
        }
        sliceRow.setVisible(many);
        sliceRow.setManaged(many);
        if (slice != null) {
            ((javafx.scene.control.SpinnerValueFactory.IntegerSpinnerValueFactory) slice.getValueFactory()).setMax(Math.max(0, slices - 1));
            if (slice.getValue() >= slices) {
                slice.getValueFactory().setValue(0);
            }
        }
        stats.setText(statsLine(TensorStats.of(values)));
        draw();
    }

    /**
     * Min, max and mean are over the finite values: when some are NaN or infinite the line says how
     * many were left out. The L2 norm is over all of them (NaN when one is NaN).
     */
    static String statsLine(TensorStats s) {
        long skipped = s.nan() + s.posInf() + s.negInf();
        String over = skipped == 0 ? "" : String.format(Locale.ROOT, "%n(min, max, mean of %d finite; %d skipped)", s.count() - skipped, skipped);
        return String.format(Locale.ROOT, "min %s   max %s   mean %s%s%nL2 norm %s   (%d values)%nNaN %d   +Inf %d   −Inf %d",
                num(s.min()), num(s.max()), num(s.mean()), over, num(s.l2()), s.count(), s.nan(), s.posInf(), s.negInf());
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "−Inf";
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

    /** At most this many cells per side; larger maps show blocks (the value of largest magnitude in each). */
    static final int MAX_CELLS = 110;
    /** The least a map measures across, in pixels (a thin map's cells stretch to it). */
    static final double MIN_THICKNESS = 18;

    private void draw() {
        if (tensor == null) {
            return;
        }
        int[] s = tensor.shape();
        int rows = s.length >= 2 ? s[s.length - 2] : 1;
        int cols = s.length >= 1 ? s[s.length - 1] : 1;
        int per = rows * cols;
        int offset = s.length > 2 && slice != null ? slice.getValue() * per : 0;
        double[] shown = per == 0 ? new double[0] : Arrays.copyOfRange(values, Math.min(offset, values.length),
                Math.min(offset + per, values.length));
        // Large maps: each cell stands for a block and shows its value of largest magnitude (NaN wins),
        // so a single spike or NaN stays visible.
        int br = Math.max(1, (rows + MAX_CELLS - 1) / MAX_CELLS);
        int bc = Math.max(1, (cols + MAX_CELLS - 1) / MAX_CELLS);
        int cr = (rows + br - 1) / br;
        int cc = (cols + bc - 1) / bc;
        double[] cells = new double[cr * cc];
        if (br == 1 && bc == 1) {
            cells = shown;
        } else {
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    int i = r * cols + c;
                    if (i >= shown.length) {
                        continue;
                    }
                    int k = (r / br) * cc + c / bc;
                    double v = shown[i];
                    double cur = cells[k];
                    if (v != v || (cur == cur && Math.abs(v) > Math.abs(cur))) {
                        cells[k] = v;
                    }
                }
            }
        }
        blockText.setText(br * bc > 1 ? "each cell: the largest |value| of a " + br + "×" + bc + " block" : "");
        blockText.setVisible(br * bc > 1);
        blockText.setManaged(br * bc > 1);
        double maxAbs = 0;
        for (double v : cells) {
            if (Double.isFinite(v)) {
                maxAbs = Math.max(maxAbs, Math.abs(v));
            }
        }
        double cell = Math.max(2, Math.min(18, Math.min(maxSide / Math.max(cc, 1), maxSide / Math.max(cr, 1))));
        // A long thin map (a [1, 1000] row) keeps at least MIN_THICKNESS across: its cells stretch that
        // way, else it was a line a pixel or two thick.
        double cellW = Math.max(cell, Math.min(18, MIN_THICKNESS / Math.max(cc, 1)));
        double cellH = Math.max(cell, Math.min(18, MIN_THICKNESS / Math.max(cr, 1)));
        canvas.setWidth(cc * cellW);
        canvas.setHeight(cr * cellH);
        GraphicsContext g = canvas.getGraphicsContext2D();
        g.clearRect(0, 0, canvas.getWidth(), canvas.getHeight());
        for (int r = 0; r < cr; r++) {
            for (int c = 0; c < cc; c++) {
                int i = r * cc + c;
                if (i >= cells.length) {
                    continue;
                }
                g.setFill(color(cells[i], maxAbs));
                g.fillRect(c * cellW, r * cellH, cellW, cellH);
            }
        }
        if (cell >= 6) {
            g.setStroke(Color.web("#ffffff"));
            g.setLineWidth(0.5);
            for (int r = 0; r <= cr; r++) {
                g.strokeLine(0, r * cellH, cc * cellW, r * cellH);
            }
            for (int c = 0; c <= cc; c++) {
                g.strokeLine(c * cellW, 0, c * cellW, cr * cellH);
            }
        }
        GraphicsContext lg = legend.getGraphicsContext2D();
        lg.setFill(new LinearGradient(0, 0, 1, 0, true, CycleMethod.NO_CYCLE, new Stop(0, NEG), new Stop(0.5, MID), new Stop(1, POS)));
        lg.fillRect(0, 0, legend.getWidth(), legend.getHeight());
        legendText.setText("±" + num(maxAbs));
    }

    /** The canvas size now (for tests). */
    public double[] canvasSize() {
        return new double[] {canvas.getWidth(), canvas.getHeight()};
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
