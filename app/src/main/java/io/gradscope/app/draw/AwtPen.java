package io.gradscope.app.draw;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import javax.imageio.ImageIO;

/** A {@link Pen} on a Java2D image: the PNG export, whole graph, whatever the view. */
public final class AwtPen implements Pen {
    /** The PNG's scale: labels at 1.5 × their size in layout units, unless the image would be too large. */
    static final double PNG_SCALE = 1.5;
    /** At most this many pixels (a 753-node chain unfolded still fits). */
    static final double MAX_PIXELS = 120e6;
    static final int MAX_SIDE = 30_000;

    private final Graphics2D g;
    private final Map<String, Font> fonts = new HashMap<>();

    public AwtPen(Graphics2D g) {
        this.g = g;
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_FRACTIONALMETRICS, RenderingHints.VALUE_FRACTIONALMETRICS_ON);
    }

    /** The scale a PNG of the whole layout is drawn at. */
    public static double pngScale(double w, double h) {
        double s = PNG_SCALE;
        s = Math.min(s, Math.sqrt(MAX_PIXELS / Math.max(1, (w + 40) * (h + 40))));
        s = Math.min(s, MAX_SIDE / Math.max(w + 40, h + 40));
        return s;
    }

    /** The whole graph of {@code scene} as a PNG file; returns the image's size. */
    public static int[] writePng(GraphScene scene, Path file) throws IOException {
        double s = pngScale(scene.layout().width(), scene.layout().height());
        GraphPainter.View v = GraphPainter.View.whole(scene.layout(), s, 20);
        BufferedImage img = new BufferedImage((int) Math.ceil(v.vw()), (int) Math.ceil(v.vh()), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            GraphPainter.paint(new AwtPen(g), scene, v);
        } finally {
            g.dispose();
        }
        if (!ImageIO.write(img, "png", file.toFile())) {
            throw new IOException("no PNG writer");
        }
        return new int[] {img.getWidth(), img.getHeight()};
    }

    private static Color color(String hex) {
        return Color.decode(hex);
    }

    private Font font(double size, boolean bold) {
        String k = (bold ? "b" : "r") + Math.round(size * 10);
        return fonts.computeIfAbsent(k, x -> new Font("DejaVu Sans", bold ? Font.BOLD : Font.PLAIN, 1).deriveFont((float) size));
    }

    @Override
    public void fillRect(double x, double y, double w, double h, String c) {
        g.setColor(color(c));
        g.fill(new Rectangle2D.Double(x, y, w, h));
    }

    @Override
    public void strokeRect(double x, double y, double w, double h, String c, double width, boolean dashed) {
        g.setColor(color(c));
        g.setStroke(dashed ? new BasicStroke((float) width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {4, 3}, 0)
                : new BasicStroke((float) width));
        g.draw(new Rectangle2D.Double(x, y, w, h));
    }

    @Override
    public void polyline(double[] xy, String c, double width) {
        Path2D.Double p = new Path2D.Double();
        p.moveTo(xy[0], xy[1]);
        for (int i = 2; i < xy.length; i += 2) {
            p.lineTo(xy[i], xy[i + 1]);
        }
        g.setColor(color(c));
        g.setStroke(new BasicStroke((float) width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
        g.draw(p);
    }

    @Override
    public void fillPolygon(double[] xy, String c) {
        Path2D.Double p = new Path2D.Double();
        p.moveTo(xy[0], xy[1]);
        for (int i = 2; i < xy.length; i += 2) {
            p.lineTo(xy[i], xy[i + 1]);
        }
        p.closePath();
        g.setColor(color(c));
        g.fill(p);
    }

    @Override
    public void text(String s, double x, double y, double size, boolean bold, String c) {
        Font f = font(size, bold);
        g.setFont(f);
        g.setColor(color(c));
        var m = g.getFontMetrics(f);
        g.drawString(s, (float) x, (float) (y + (m.getAscent() - m.getDescent()) / 2.0));
    }

    @Override
    public double textWidth(String s, double size, boolean bold) {
        return font(size, bold).getStringBounds(s, g.getFontRenderContext()).getWidth();
    }
}
