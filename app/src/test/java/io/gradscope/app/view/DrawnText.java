package io.gradscope.app.view;

import io.gradscope.app.draw.GraphPainter;
import io.gradscope.app.draw.Pen;
import java.util.ArrayList;
import java.util.List;

/**
 * The text the painter writes when it draws the graph panel's view as it is: each piece with what it
 * belongs to (a node's key, a group's path) and where (its left end, its middle, its size, in the
 * canvas's pixels). Measured as the screen measures ({@link FxPen}).
 */
record DrawnText(String kind, String id, String text, double x, double y, double size) {

    /** Everything the view writes now. */
    static List<DrawnText> of(GraphPanel panel) {
        List<DrawnText> out = new ArrayList<>();
        Pen measure = new FxPen(panel.canvas().getGraphicsContext2D());
        Pen pen = new Pen() {
            private String kind;
            private String id;

            @Override
            public void fillRect(double x, double y, double w, double h, String color) {
            }

            @Override
            public void strokeRect(double x, double y, double w, double h, String color, double width, boolean dashed) {
            }

            @Override
            public void polyline(double[] xy, String color, double width) {
            }

            @Override
            public void fillPolygon(double[] xy, String color) {
            }

            @Override
            public void text(String s, double x, double y, double size, boolean bold, String color) {
                out.add(new DrawnText(kind, id, s, x, y, size));
            }

            @Override
            public double textWidth(String s, double size, boolean bold) {
                return measure.textWidth(s, size, bold);
            }

            @Override
            public void begin(String k, String i) {
                kind = k;
                id = i;
            }

            @Override
            public void end() {
                kind = null;
                id = null;
            }
        };
        GraphPainter.paint(pen, panel.scene(), GraphPainter.View.of(panel.camera()));
        return out;
    }

    /** Whether the view writes a label of at least the painter's smallest size inside node {@code key}. */
    static boolean labelOf(GraphPanel panel, String key) {
        return of(panel).stream().anyMatch(t -> "node".equals(t.kind) && key.equals(t.id) && !t.text.isBlank()
                && t.size >= GraphPainter.MIN_FONT);
    }
}
