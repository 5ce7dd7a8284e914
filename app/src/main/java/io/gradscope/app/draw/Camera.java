package io.gradscope.app.draw;

import io.gradscope.app.layout.GraphLayout;

/**
 * Where the graph view looks: a scale (pixels per layout unit) and the layout point at the
 * viewport's centre. Plain numbers, no window: fit, zoom about a point, pan, keep a box in view.
 * There is no zoom limit that hides labels: labels scale with the graph (see {@link GraphPainter}).
 */
public final class Camera {
    /** The margin Fit leaves around the graph, in pixels. */
    public static final double FIT_MARGIN = 16;
    /** Fit never magnifies more than this (a five-node graph is not drawn huge). */
    public static final double FIT_MAX_SCALE = 1.5;
    static final double MIN_SCALE = 1e-4;
    static final double MAX_SCALE = 40;

    private double scale = 1;
    private double cx;
    private double cy;
    private double width;
    private double height;

    public double scale() {
        return scale;
    }

    public double centerX() {
        return cx;
    }

    public double centerY() {
        return cy;
    }

    public double width() {
        return width;
    }

    public double height() {
        return height;
    }

    /** The viewport's size in pixels. */
    public void resize(double w, double h) {
        width = w;
        height = h;
    }

    /** The x pixel of layout x. */
    public double toPxX(double x) {
        return (x - cx) * scale + width / 2;
    }

    public double toPxY(double y) {
        return (y - cy) * scale + height / 2;
    }

    public double toLayoutX(double px) {
        return (px - width / 2) / scale + cx;
    }

    public double toLayoutY(double py) {
        return (py - height / 2) / scale + cy;
    }

    /** Shows all of {@code b}: centred, as large as fits (at most {@link #FIT_MAX_SCALE}). */
    public void fit(GraphLayout.Box b) {
        fit(b, viewport());
    }

    /**
     * Shows all of {@code b} inside {@code area}, a part of the viewport (pixels: the room beside
     * the overview map): centred there, as large as fits (at most {@link #FIT_MAX_SCALE}).
     */
    public void fit(GraphLayout.Box b, GraphLayout.Box area) {
        scale = fitScale(b, area);
        cx = b.cx() - (area.cx() - width / 2) / scale;
        cy = b.cy() - (area.cy() - height / 2) / scale;
    }

    /** Whether the view is what {@link #fit} of {@code b} gives at the viewport's size (not zoomed or moved since). */
    public boolean isFitTo(GraphLayout.Box b) {
        return isFitTo(b, viewport());
    }

    /** Whether the view is what {@link #fit(GraphLayout.Box, GraphLayout.Box)} of {@code b} into {@code area} gives. */
    public boolean isFitTo(GraphLayout.Box b, GraphLayout.Box area) {
        double s = fitScale(b, area);
        return Math.abs(scale - s) <= 1e-9 * scale && Math.abs(cx - (b.cx() - (area.cx() - width / 2) / s)) < 1e-6
                && Math.abs(cy - (b.cy() - (area.cy() - height / 2) / s)) < 1e-6;
    }

    /** The scale {@link #fit} of {@code b} gives at the viewport's size. */
    double fitScale(GraphLayout.Box b) {
        return fitScale(b, viewport());
    }

    /** The scale at which {@code b} fits {@code area} (pixels) with {@link #FIT_MARGIN} round it. */
    double fitScale(GraphLayout.Box b, GraphLayout.Box area) {
        double w = Math.max(1, area.w() - 2 * FIT_MARGIN);
        double h = Math.max(1, area.h() - 2 * FIT_MARGIN);
        return clamp(Math.min(FIT_MAX_SCALE, Math.min(w / Math.max(b.w(), 1), h / Math.max(b.h(), 1))));
    }

    /** The whole viewport, in pixels. */
    public GraphLayout.Box viewport() {
        return new GraphLayout.Box(0, 0, width, height);
    }

    /** Zooms by {@code factor} (above 1: in) keeping the layout point under pixel (px, py) where it is. */
    public void zoomAt(double factor, double px, double py) {
        double x = toLayoutX(px);
        double y = toLayoutY(py);
        scale = clamp(scale * factor);
        cx = x - (px - width / 2) / scale;
        cy = y - (py - height / 2) / scale;
    }

    /** Zooms about the viewport's centre. */
    public void zoom(double factor) {
        zoomAt(factor, width / 2, height / 2);
    }

    public void setScale(double s) {
        scale = clamp(s);
    }

    /** Moves the view by a drag of (dx, dy) pixels: the drawing follows the mouse. */
    public void panBy(double dx, double dy) {
        cx -= dx / scale;
        cy -= dy / scale;
    }

    public void centerOn(double x, double y) {
        cx = x;
        cy = y;
    }

    /** The layout area in view. */
    public GraphLayout.Box visible() {
        return new GraphLayout.Box(toLayoutX(0), toLayoutY(0), width / scale, height / scale);
    }

    /** Whether all of {@code b} is in view. */
    public boolean shows(GraphLayout.Box b) {
        return toPxX(b.x()) >= -0.5 && toPxY(b.y()) >= -0.5 && toPxX(b.x() + b.w()) <= width + 0.5 && toPxY(b.y() + b.h()) <= height + 0.5;
    }

    /** Pans just enough to bring {@code b} inside the viewport less {@code margin} pixels (when it fits); true if it moved. */
    public boolean ensureVisible(GraphLayout.Box b, double margin) {
        double left = toPxX(b.x());
        double right = toPxX(b.x() + b.w());
        double top = toPxY(b.y());
        double bottom = toPxY(b.y() + b.h());
        double dx = left < margin ? left - margin : right > width - margin ? Math.min(right - (width - margin), left - margin) : 0;
        double dy = top < margin ? top - margin : bottom > height - margin ? Math.min(bottom - (height - margin), top - margin) : 0;
        cx += dx / scale;
        cy += dy / scale;
        return dx != 0 || dy != 0;
    }

    /**
     * Pans, if need be, so that box {@code b} keeps {@code margin} pixels clear of the viewport's area
     * from (x0, y0) to (x1, y1) (the overview map in its corner): away from it, up or down and left or
     * right, whichever moves less and keeps the box in view; true when it moved.
     */
    public boolean keepClear(GraphLayout.Box b, double x0, double y0, double x1, double y1, double margin) {
        double left = toPxX(b.x());
        double right = toPxX(b.x() + b.w());
        double top = toPxY(b.y());
        double bottom = toPxY(b.y() + b.h());
        if (right + margin <= x0 || left - margin >= x1 || bottom + margin <= y0 || top - margin >= y1) {
            return false;
        }
        // Away from the map: up or down, left or right, whichever corner it is in.
        boolean mapBelow = y0 + y1 > height;
        boolean mapRight = x0 + x1 > width;
        double up = mapBelow ? bottom + margin - y0 : y1 + margin - top;
        double aside = mapRight ? right + margin - x0 : x1 + margin - left;
        boolean upFits = mapBelow ? top - up >= margin : bottom + up <= height - margin;
        boolean asideFits = mapRight ? left - aside >= margin : right + aside <= width - margin;
        if (upFits && (!asideFits || up <= aside)) {
            cy += (mapBelow ? up : -up) / scale;
        } else if (asideFits) {
            cx += (mapRight ? aside : -aside) / scale;
        } else {
            return false; // larger than the room beside the map: left where it is
        }
        return true;
    }

    private static double clamp(double s) {
        return Math.max(MIN_SCALE, Math.min(MAX_SCALE, s));
    }
}
