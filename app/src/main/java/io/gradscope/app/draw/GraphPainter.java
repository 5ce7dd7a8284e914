package io.gradscope.app.draw;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.layout.TextWidth;

/**
 * Draws a {@link GraphScene} with a {@link Pen} at a scale: container boxes, edges with their
 * arrowheads where they arrive, nodes and their labels. Only what lies in the viewport is drawn.
 *
 * <p>Labels scale with the graph. When that would make them smaller than {@link #MIN_FONT} they
 * are drawn at that size, in full if they fit their box, else briefly (the name or the op), else not
 * at all: a label never leaves its box, so labels never overlap.
 */
public final class GraphPainter {
    /** The smallest label drawn, in pixels. */
    public static final double MIN_FONT = 8;
    /** A container's title size (layout units). */
    static final double TITLE_SIZE = 12;

    private GraphPainter() {
    }

    /**
     * Where layout point (x, y) is drawn: (x * scale + ox, y * scale + oy); what is drawn: the pixels
     * from (x0, y0) to (x1, y1) (the viewport, or the part of it a step changed).
     */
    public record View(double scale, double ox, double oy, double vw, double vh, double x0, double y0, double x1, double y1) {
        public View(double scale, double ox, double oy, double vw, double vh) {
            this(scale, ox, oy, vw, vh, 0, 0, vw, vh);
        }

        public static View of(Camera c) {
            return new View(c.scale(), c.toPxX(0), c.toPxY(0), c.width(), c.height());
        }

        /** The whole layout at {@code scale}, with {@code margin} pixels around it. */
        public static View whole(GraphLayout.Result l, double scale, double margin) {
            return new View(scale, margin, margin, l.width() * scale + 2 * margin, l.height() * scale + 2 * margin);
        }

        /** The same view, drawing only the pixels from (x0, y0) to (x1, y1). */
        public View clip(double cx0, double cy0, double cx1, double cy1) {
            return new View(scale, ox, oy, vw, vh, Math.max(0, cx0), Math.max(0, cy0), Math.min(vw, cx1), Math.min(vh, cy1));
        }

        boolean sees(double x, double y, double w, double h) {
            double px = x * scale + ox;
            double py = y * scale + oy;
            return px + w * scale >= x0 - 2 && py + h * scale >= y0 - 2 && px <= x1 + 2 && py <= y1 + 2;
        }
    }

    /** Draws the scene. */
    public static void paint(Pen pen, GraphScene s, View v) {
        pen.fillRect(v.x0(), v.y0(), v.x1() - v.x0(), v.y1() - v.y0(), Looks.BACKGROUND);
        double k = v.scale();
        for (GraphLayout.GroupBox g : s.groups) {
            GraphLayout.Box b = g.box();
            if (!v.sees(b.x(), b.y(), b.w(), b.h())) {
                continue;
            }
            double x = b.x() * k + v.ox();
            double y = b.y() * k + v.oy();
            boolean run = GraphScene.isRun(g);
            pen.begin("group", g.path());
            if (run) {
                pen.fillRect(x, y, b.w() * k, b.h() * k, Looks.RUN_FILL);
            }
            pen.strokeRect(x, y, b.w() * k, b.h() * k, run ? Looks.RUN_STROKE : Looks.BOX_STROKE, Math.max(0.5, Math.min(1.5, k)), true);
            title(pen, g.name(), x, y, b.w() * k, k, v);
            pen.end();
        }
        // Plain edges first, lit ones over them.
        for (int pass = 0; pass < 2; pass++) {
            for (int e = 0; e < s.routes.length; e++) {
                Looks.EdgeLook look = s.edgeLooks[e];
                if (Looks.isLit(look) != (pass == 1)) {
                    continue;
                }
                double[] bb = s.edgeBounds[e];
                if (!v.sees(bb[0], bb[1], bb[2] - bb[0], bb[3] - bb[1])) {
                    continue;
                }
                pen.begin("edge", null);
                edge(pen, s.routes[e], look, v);
                pen.end();
            }
        }
        for (int i = 0; i < s.keys.length; i++) {
            double[] b = s.boxes[i];
            if (!v.sees(b[0], b[1], b[2], b[3])) {
                continue;
            }
            Looks.NodeLook look = s.looks[i];
            double x = b[0] * k + v.ox();
            double y = b[1] * k + v.oy();
            double w = b[2] * k;
            double h = b[3] * k;
            pen.begin("node", s.keys[i]);
            if (w < 1.5 || h < 1.5) {
                pen.fillRect(x, y, Math.max(w, 0.5), Math.max(h, 0.5), look.stroke());
            } else {
                pen.fillRect(x, y, w, h, look.fill());
                pen.strokeRect(x, y, w, h, look.stroke(), Math.max(0.5, look.strokeWidth() * Math.min(1, k)), false);
                label(pen, s.labels[i], s.briefs[i], look, x, y, w, h, k);
            }
            pen.end();
        }
    }

    /**
     * Whether node {@code i} of the scene is drawn with a label at scale {@code k} (in full or its
     * name or op): false when its box is too small on screen to hold one at {@link #MIN_FONT}.
     */
    public static boolean labelled(Pen pen, GraphScene s, int i, double k) {
        double[] b = s.boxes[i];
        double w = b[2] * k;
        double h = b[3] * k;
        return w >= 1.5 && h >= 1.5 && fit(pen, s.labels[i], s.briefs[i], s.looks[i].bold(), w, h, k, new double[1]) != null;
    }

    /** The label that fits a box w × h pixels at scale k: full, shrunk to fit, brief, or none; and its size. */
    static String fit(Pen pen, String full, String brief, boolean bold, double w, double h, double k, double[] size) {
        double font = TextWidth.SIZE * k;
        double avail = w - Math.max(2, 4 * k);
        double sz = Math.max(font, MIN_FONT);
        if (h < sz * 1.1) {
            return null;
        }
        double tw = pen.textWidth(full, sz, bold);
        if (tw <= avail) {
            size[0] = sz;
            return full;
        }
        if (font >= MIN_FONT && sz * avail / tw >= MIN_FONT) {
            size[0] = sz * avail / tw;
            return full;
        }
        if (brief != null && pen.textWidth(brief, MIN_FONT, bold) <= avail) {
            size[0] = Math.min(sz, Math.max(MIN_FONT, MIN_FONT * avail / pen.textWidth(brief, MIN_FONT, bold)));
            return brief;
        }
        return null;
    }

    private static void label(Pen pen, String full, String brief, Looks.NodeLook look, double x, double y, double w, double h, double k) {
        double[] size = new double[1];
        String text = fit(pen, full, brief, look.bold(), w, h, k, size);
        if (text != null) {
            double tw = pen.textWidth(text, size[0], look.bold());
            pen.text(text, x + (w - tw) / 2, y + h / 2, size[0], look.bold(), look.text());
        }
    }

    /**
     * A container's title, in the band at the top of its box, within the part of the band in the
     * viewport: a section wider than the view, opened by Find or a step, had its title start off
     * screen at the box's left edge. The band holds nothing else, so the title may slide along it.
     */
    private static void title(Pen pen, String name, double x, double y, double w, double k, View v) {
        double sz = Math.max(TITLE_SIZE * k, MIN_FONT);
        double band = 30 * k;
        if (band < sz) { // a title in the band as tall as its letters still reads: at Fit on a large program, often the only one
            return;
        }
        double left = Math.max(3, 8 * k);
        // The viewport (not the part being redrawn), so a step's partial redraw puts the title where the whole one did.
        double from = Math.max(x, 0);
        double to = Math.min(x + w, v.vw());
        String shown = titleThatFits(pen, name, sz, to - from - 2 * left);
        if (shown != null) {
            pen.text(shown, from + left, y + band / 2, sz, true, Looks.BOX_TITLE);
        }
    }

    /**
     * A container's title as it fits {@code avail} pixels: whole; a section's lines alone ("lines
     * 631–645", without its ops); else cut short with "…"; null when not even a few letters fit.
     * An opened section inside another, as narrow as its column of nodes, had no title at all.
     */
    static String titleThatFits(Pen pen, String name, double size, double avail) {
        if (pen.textWidth(name, size, true) <= avail) {
            return name;
        }
        int colon = name.indexOf(':');
        String head = colon > 0 ? name.substring(0, colon) : name;
        if (pen.textWidth(head, size, true) <= avail) {
            return head;
        }
        for (int end = head.length() - 1; end >= 3; end--) {
            String cut = head.substring(0, end).stripTrailing() + "…";
            if (pen.textWidth(cut, size, true) <= avail) {
                return cut;
            }
        }
        return null;
    }

    private static void edge(Pen pen, double[] route, Looks.EdgeLook look, View v) {
        int n = route.length / 2;
        if (n < 2) {
            return;
        }
        double k = v.scale();
        double[] xy = new double[route.length];
        for (int i = 0; i < n; i++) {
            xy[2 * i] = route[2 * i] * k + v.ox();
            xy[2 * i + 1] = route[2 * i + 1] * k + v.oy();
        }
        double width = Math.max(0.5, look.width() * Math.min(1, k));
        // The arrowhead: at the route's end, along its last segment.
        double tipX = xy[2 * n - 2];
        double tipY = xy[2 * n - 1];
        int j = n - 2;
        while (j > 0 && Math.hypot(xy[2 * j] - tipX, xy[2 * j + 1] - tipY) < 1e-6) {
            j--;
        }
        double dx = tipX - xy[2 * j];
        double dy = tipY - xy[2 * j + 1];
        double len = Math.hypot(dx, dy);
        double head = (Looks.isLit(look) ? 10 : 7) * Math.min(1.5, k);
        boolean arrow = head >= 2.5 && len > 1e-6;
        if (arrow) {
            double ux = dx / len;
            double uy = dy / len;
            double back = Math.min(head * 0.8, len);
            xy[2 * n - 2] = tipX - ux * back;
            xy[2 * n - 1] = tipY - uy * back;
            pen.polyline(xy, look.color(), width);
            double bx = tipX - ux * head;
            double by = tipY - uy * head;
            double half = head * 0.45;
            pen.fillPolygon(new double[] {tipX, tipY, bx - uy * half, by + ux * half, bx + uy * half, by - ux * half}, look.color());
        } else {
            pen.polyline(xy, look.color(), width);
        }
    }

    /** The overview: boxes and nodes only, coloured by kind, no labels or edges. */
    public static void paintOverview(Pen pen, GraphScene s, View v) {
        double k = v.scale();
        for (GraphLayout.GroupBox g : s.groups) {
            GraphLayout.Box b = g.box();
            pen.strokeRect(b.x() * k + v.ox(), b.y() * k + v.oy(), b.w() * k, b.h() * k,
                    GraphScene.isRun(g) ? Looks.RUN_STROKE : Looks.BOX_STROKE, 0.5, false);
        }
        for (int i = 0; i < s.keys.length; i++) {
            double[] b = s.boxes[i];
            pen.fillRect(b[0] * k + v.ox(), b[1] * k + v.oy(), Math.max(1, b[2] * k), Math.max(1, b[3] * k),
                    Looks.KIND.getOrDefault(s.kinds[i], Looks.KIND.get("op")).stroke());
        }
    }
}
