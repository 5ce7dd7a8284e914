package io.gradscope.app.view;

import io.gradscope.app.layout.GraphLayout;
import java.util.function.Supplier;
import javafx.application.Platform;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.Region;
import org.graphstream.graph.Graph;
import org.graphstream.graph.Node;
import org.graphstream.ui.fx_viewer.FxViewPanel;
import org.graphstream.ui.geom.Point3;
import org.graphstream.ui.view.camera.Camera;

/** Where the graph view looks: fit, zoom, pan by dragging, and keeping a node in view. */
final class GraphCamera {
    /** The graph's padding in the stylesheet, in pixels. */
    static final double PADDING_PX = 30;

    private final FxViewPanel panel;
    private final Region owner;
    private final Graph graph;
    private final Supplier<GraphLayout.Result> layout;
    /** When the view was last fitted: the camera's pixel transform is stale until the next frame. */
    private long lastFit;
    private double dragX;
    private double dragY;
    private boolean dragged;

    GraphCamera(FxViewPanel panel, Region owner, Graph graph, Supplier<GraphLayout.Result> layout) {
        this.panel = panel;
        this.owner = owner;
        this.graph = graph;
        this.layout = layout;
        panel.addEventFilter(MouseEvent.MOUSE_PRESSED, e -> {
            dragX = e.getX();
            dragY = e.getY();
            dragged = false;
        });
        panel.addEventFilter(MouseEvent.MOUSE_DRAGGED, this::pan);
    }

    /** Whether the mouse moved the view since it was pressed (then a release is no click). */
    boolean dragged() {
        return dragged;
    }

    /**
     * Shows the whole graph, at most at one pixel per layout unit (so labels fit their boxes).
     * GraphStream's own fit only sees node centres; the view percent corrects for the boxes.
     */
    void fit() {
        lastFit = System.nanoTime();
        Camera c = panel.getCamera();
        c.resetView();
        GraphLayout.Result l = layout.get();
        if (l == null || l.nodes().isEmpty()) {
            return;
        }
        double pw = panel.getWidth() > 0 ? panel.getWidth() : owner.getWidth();
        double ph = panel.getHeight() > 0 ? panel.getHeight() : owner.getHeight();
        if (pw <= 0 || ph <= 0) {
            // Not laid out yet: fit again once the panel has a size.
            Platform.runLater(this::fit);
            return;
        }
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double minY = Double.MAX_VALUE;
        double maxY = -Double.MAX_VALUE;
        for (GraphLayout.DisplayNode d : l.nodes().values()) {
            minX = Math.min(minX, d.box().cx());
            maxX = Math.max(maxX, d.box().cx());
            minY = Math.min(minY, d.box().cy());
            maxY = Math.max(maxY, d.box().cy());
        }
        double pad = 2 * PADDING_PX;
        double ratioCenters = Math.min((pw - pad) / Math.max(maxX - minX, 1), (ph - pad) / Math.max(maxY - minY, 1));
        double ratioBoxes = Math.min(1.5, Math.min((pw - pad) / Math.max(l.width(), 1), (ph - pad) / Math.max(l.height(), 1)));
        c.setViewCenter((minX + maxX) / 2, -(minY + maxY) / 2, 0);
        // Below 3/4 of a pixel per unit the labels no longer fit their boxes: start at 1:1 instead
        // (the sweep keeps its current node in view; Fit shows everything).
        double ratio = ratioBoxes >= 0.75 ? ratioBoxes : 1.0;
        c.setViewPercent(Math.max(0.05, ratioCenters / ratio));
    }

    /** Pans so that a drawn node is in view (when it is not already). */
    void ensureVisible(String key) {
        Node n = key == null ? null : graph.getNode(key);
        if (n == null || panel.getWidth() <= 0 || System.nanoTime() - lastFit < 500_000_000L) {
            return;
        }
        Object[] xyz = (Object[]) n.getAttribute("xyz");
        Camera c = panel.getCamera();
        Point3 px = c.transformGuToPx(((Number) xyz[0]).doubleValue(), ((Number) xyz[1]).doubleValue(), 0);
        double margin = 60;
        double w = panel.getWidth();
        double h = panel.getHeight();
        // Pan just enough to bring the node inside the margins (not re-centre: the view stays put).
        double dx = px.x < margin ? px.x - margin : px.x > w - margin ? px.x - (w - margin) : 0;
        double dy = px.y < margin ? px.y - margin : px.y > h - margin ? px.y - (h - margin) : 0;
        if (dx != 0 || dy != 0) {
            Point3 center = c.getViewCenter();
            Point3 cpx = c.transformGuToPx(center.x, center.y, 0);
            Point3 moved = c.transformPxToGu(cpx.x + dx, cpx.y + dy);
            c.setViewCenter(moved.x, moved.y, 0);
        }
    }

    void zoom(double factor) {
        Camera c = panel.getCamera();
        c.setViewPercent(Math.max(0.05, Math.min(4, c.getViewPercent() * factor)));
    }

    /** Centers the view on a drawn node. */
    void centerOn(String key) {
        Node n = key == null ? null : graph.getNode(key);
        if (n != null) {
            Object[] xyz = (Object[]) n.getAttribute("xyz");
            panel.getCamera().setViewCenter(((Number) xyz[0]).doubleValue(), ((Number) xyz[1]).doubleValue(), 0);
        }
    }

    private void pan(MouseEvent e) {
        if (e.getButton() != MouseButton.PRIMARY && e.getButton() != MouseButton.MIDDLE) {
            return;
        }
        Camera c = panel.getCamera();
        Point3 a = c.transformPxToGu(dragX, dragY);
        Point3 b = c.transformPxToGu(e.getX(), e.getY());
        Point3 center = c.getViewCenter();
        c.setViewCenter(center.x - (b.x - a.x), center.y - (b.y - a.y), 0);
        dragX = e.getX();
        dragY = e.getY();
        dragged = true;
        e.consume();
    }
}
