package io.gradscope.app.view;

import io.gradscope.app.draw.Pen;
import java.util.HashMap;
import java.util.Map;
import javafx.geometry.VPos;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.paint.Color;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;

/** A {@link Pen} on a JavaFX canvas. Text is measured once per string at 100 px and scaled. */
final class FxPen implements Pen {
    private static final String FAMILY = "DejaVu Sans";
    private static final Map<String, Color> COLORS = new HashMap<>();
    private static final Map<String, Double> WIDTHS = new HashMap<>();
    private static final Text MEASURE = new Text();
    private final GraphicsContext g;
    private final Map<Long, Font> fonts = new HashMap<>();

    FxPen(GraphicsContext g) {
        this.g = g;
        g.setTextBaseline(VPos.CENTER);
        g.setTextAlign(TextAlignment.LEFT);
        g.setLineDashes((double[]) null);
    }

    static Color color(String hex) {
        return COLORS.computeIfAbsent(hex, Color::web);
    }

    private Font font(double size, boolean bold) {
        long k = Math.round(size * 20) * 2 + (bold ? 1 : 0);
        return fonts.computeIfAbsent(k, x -> Font.font(FAMILY, bold ? FontWeight.BOLD : FontWeight.NORMAL, size));
    }

    @Override
    public void fillRect(double x, double y, double w, double h, String c) {
        g.setFill(color(c));
        g.fillRect(x, y, w, h);
    }

    @Override
    public void strokeRect(double x, double y, double w, double h, String c, double width, boolean dashed) {
        g.setStroke(color(c));
        g.setLineWidth(width);
        if (dashed) {
            g.setLineDashes(4, 3);
        }
        g.strokeRect(x, y, w, h);
        if (dashed) {
            g.setLineDashes((double[]) null);
        }
    }

    @Override
    public void polyline(double[] xy, String c, double width) {
        int n = xy.length / 2;
        double[] xs = new double[n];
        double[] ys = new double[n];
        for (int i = 0; i < n; i++) {
            xs[i] = xy[2 * i];
            ys[i] = xy[2 * i + 1];
        }
        g.setStroke(color(c));
        g.setLineWidth(width);
        g.strokePolyline(xs, ys, n);
    }

    @Override
    public void fillPolygon(double[] xy, String c) {
        int n = xy.length / 2;
        double[] xs = new double[n];
        double[] ys = new double[n];
        for (int i = 0; i < n; i++) {
            xs[i] = xy[2 * i];
            ys[i] = xy[2 * i + 1];
        }
        g.setFill(color(c));
        g.fillPolygon(xs, ys, n);
    }

    @Override
    public void text(String s, double x, double y, double size, boolean bold, String c) {
        g.setFont(font(size, bold));
        g.setFill(color(c));
        g.fillText(s, x, y);
    }

    /** The width at 100 px, scaled (with 4% to spare for hinting at small sizes). */
    @Override
    public double textWidth(String s, double size, boolean bold) {
        if (WIDTHS.size() > 200_000) {
            WIDTHS.clear();
        }
        double w100 = WIDTHS.computeIfAbsent((bold ? "b" : "r") + s, k -> {
            MEASURE.setFont(Font.font(FAMILY, bold ? FontWeight.BOLD : FontWeight.NORMAL, 100));
            MEASURE.setText(s);
            return MEASURE.getLayoutBounds().getWidth();
        });
        return w100 * size / 100 * 1.04;
    }
}
