package io.gradscope.app.draw;

import io.gradscope.app.layout.TextWidth;
import java.util.Locale;

/** A {@link Pen} that writes SVG elements (text measured with the font's own widths). */
public final class SvgPen implements Pen {
    private final StringBuilder sb = new StringBuilder();

    public SvgPen(double width, double height) {
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                + "viewBox=\"0 0 %.1f %.1f\" font-family=\"DejaVu Sans, sans-serif\">%n", width, height, width, height));
    }

    /** The whole graph of {@code scene} as an SVG document, at scale 1. */
    public static String svg(GraphScene scene) {
        GraphPainter.View v = GraphPainter.View.whole(scene.layout(), 1, 20);
        SvgPen pen = new SvgPen(v.vw(), v.vh());
        GraphPainter.paint(pen, scene, v);
        return pen.finish();
    }

    public String finish() {
        return sb.append("</svg>\n").toString();
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    @Override
    public void fillRect(double x, double y, double w, double h, String color) {
        sb.append("<rect x=\"").append(f(x)).append("\" y=\"").append(f(y)).append("\" width=\"").append(f(w)).append("\" height=\"")
                .append(f(h)).append("\" fill=\"").append(color).append("\"/>\n");
    }

    @Override
    public void strokeRect(double x, double y, double w, double h, String color, double width, boolean dashed) {
        sb.append("<rect x=\"").append(f(x)).append("\" y=\"").append(f(y)).append("\" width=\"").append(f(w)).append("\" height=\"")
                .append(f(h)).append("\" fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"").append(f(width))
                .append(dashed ? "\" stroke-dasharray=\"4 3" : "").append("\"/>\n");
    }

    @Override
    public void polyline(double[] xy, String color, double width) {
        sb.append("<polyline points=\"");
        for (int i = 0; i < xy.length; i += 2) {
            sb.append(i == 0 ? "" : " ").append(f(xy[i])).append(',').append(f(xy[i + 1]));
        }
        sb.append("\" fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"").append(f(width)).append("\"/>\n");
    }

    @Override
    public void fillPolygon(double[] xy, String color) {
        sb.append("<polygon points=\"");
        for (int i = 0; i < xy.length; i += 2) {
            sb.append(i == 0 ? "" : " ").append(f(xy[i])).append(',').append(f(xy[i + 1]));
        }
        sb.append("\" fill=\"").append(color).append("\"/>\n");
    }

    @Override
    public void text(String s, double x, double y, double size, boolean bold, String color) {
        sb.append("<text x=\"").append(f(x)).append("\" y=\"").append(f(y)).append("\" font-size=\"").append(f(size))
                .append(bold ? "\" font-weight=\"bold" : "").append("\" dominant-baseline=\"central\" fill=\"").append(color)
                .append("\">").append(esc(s)).append("</text>\n");
    }

    @Override
    public double textWidth(String s, double size, boolean bold) {
        return TextWidth.of(s, size, bold);
    }

    @Override
    public void begin(String kind, String id) {
        sb.append("<g class=\"").append(kind).append('"');
        if (id != null) {
            sb.append(" id=\"").append(esc(id)).append('"');
        }
        sb.append(">\n");
    }

    @Override
    public void end() {
        sb.append("</g>\n");
    }
}
