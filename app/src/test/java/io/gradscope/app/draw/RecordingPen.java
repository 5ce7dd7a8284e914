package io.gradscope.app.draw;

import io.gradscope.app.layout.TextWidth;
import java.util.ArrayList;
import java.util.List;

/** A pen that keeps what it was asked to draw, grouped by the node, edge or group it belongs to. */
final class RecordingPen implements Pen {
    record Text(String owner, String s, double x, double y, double size, boolean bold, double width) {
    }

    record Shape(String owner, String kind, double[] xy, String color) {
    }

    final List<Text> texts = new ArrayList<>();
    final List<Shape> shapes = new ArrayList<>();
    private String owner = "";

    @Override
    public void fillRect(double x, double y, double w, double h, String color) {
        shapes.add(new Shape(owner, "fill", new double[] {x, y, w, h}, color));
    }

    @Override
    public void strokeRect(double x, double y, double w, double h, String color, double width, boolean dashed) {
        shapes.add(new Shape(owner, "stroke", new double[] {x, y, w, h}, color));
    }

    @Override
    public void polyline(double[] xy, String color, double width) {
        shapes.add(new Shape(owner, "line", xy.clone(), color));
    }

    @Override
    public void fillPolygon(double[] xy, String color) {
        shapes.add(new Shape(owner, "arrow", xy.clone(), color));
    }

    @Override
    public void text(String s, double x, double y, double size, boolean bold, String color) {
        texts.add(new Text(owner, s, x, y, size, bold, textWidth(s, size, bold)));
    }

    @Override
    public double textWidth(String s, double size, boolean bold) {
        return TextWidth.of(s, size, bold);
    }

    @Override
    public void begin(String kind, String id) {
        owner = kind + ":" + (id == null ? shapes.size() : id);
    }

    @Override
    public void end() {
        owner = "";
    }
}
