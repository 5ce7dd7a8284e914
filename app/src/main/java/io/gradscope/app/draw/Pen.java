package io.gradscope.app.draw;

/**
 * What the graph is drawn with, in device units (pixels): the screen's canvas, a PNG's image, an
 * SVG document. Colours are "#rrggbb".
 */
public interface Pen {
    void fillRect(double x, double y, double w, double h, String color);

    void strokeRect(double x, double y, double w, double h, String color, double width, boolean dashed);

    /** An open polyline through {@code xy} (x0, y0, x1, y1, ...). */
    void polyline(double[] xy, String color, double width);

    void fillPolygon(double[] xy, String color);

    /** Text with its left end at {@code x} and its middle at {@code y}. */
    void text(String s, double x, double y, double size, boolean bold, String color);

    double textWidth(String s, double size, boolean bold);

    /** What follows, up to {@link #end()}, is one thing: a "node" (with its key as id), an "edge", a "group". */
    default void begin(String kind, String id) {
    }

    default void end() {
    }
}
