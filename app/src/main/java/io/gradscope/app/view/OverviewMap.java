package io.gradscope.app.view;

import io.gradscope.app.draw.Camera;
import io.gradscope.app.draw.GraphPainter;
import io.gradscope.app.draw.GraphScene;
import io.gradscope.app.layout.GraphLayout;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.StackPane;
import javafx.scene.paint.Color;

/**
 * The whole graph in small, with the part in view drawn on it as a rectangle; pressing or dragging
 * on it moves the view there. Shown while the view does not hold the whole graph, unless the user hid
 * it (View → Overview Map).
 */
final class OverviewMap extends StackPane {
    static final double MAX_W = 200;
    static final double MAX_H = 150;
    /**
     * The most of the graph pane's width, and of its height, the map takes: at 1024 × 700 the map
     * at its full size took a third of the pane's width and covered what Fit and the steps showed.
     */
    static final double MAX_PANE_FRACTION = 0.25;
    private final Canvas base = new Canvas();
    private final Canvas overlay = new Canvas();
    private final Camera camera;
    private final Runnable moved;
    private GraphScene scene;
    private double scale = 1;
    private double pad = 4;
    /** The pane's size (width, height) the map is sized for. */
    private double paneW = Double.MAX_VALUE;
    private double paneH = Double.MAX_VALUE;
    /** Whether the user shows the map (View → Overview Map): kept for the session, whatever is opened. */
    private final BooleanProperty enabled = new SimpleBooleanProperty(true);

    OverviewMap(Camera camera, Runnable moved) {
        this.camera = camera;
        this.moved = moved;
        setId("overview");
        getChildren().addAll(base, overlay);
        setStyle("-fx-border-color: #c8ccd4; -fx-background-color: rgba(255,255,255,0.92);");
        setMaxSize(USE_PREF_SIZE, USE_PREF_SIZE);
        overlay.addEventHandler(MouseEvent.MOUSE_PRESSED, this::moveTo);
        overlay.addEventHandler(MouseEvent.MOUSE_DRAGGED, this::moveTo);
        setVisible(false);
        enabled.addListener((o, a, b) -> update());
    }

    BooleanProperty enabled() {
        return enabled;
    }

    /** Sizes the map for a graph pane of {@code w} × {@code h} pixels (at most {@link #MAX_PANE_FRACTION} of each). */
    void setPane(double w, double h) {
        if (w == paneW && h == paneH) {
            return;
        }
        paneW = w;
        paneH = h;
        if (scene != null) {
            setScene(scene);
            update();
        }
    }

    /** Draws a new layout in small (null: none, the map hidden). */
    void setScene(GraphScene s) {
        scene = s;
        if (s == null) {
            setVisible(false); // no graph: no map
            return;
        }
        GraphLayout.Result l = s.layout();
        // The drawing, within its 1 px border.
        double maxW = Math.max(4 * pad, Math.min(MAX_W, Math.floor(MAX_PANE_FRACTION * paneW) - 2));
        double maxH = Math.max(4 * pad, Math.min(MAX_H, Math.floor(MAX_PANE_FRACTION * paneH) - 2));
        scale = Math.min((maxW - 2 * pad) / Math.max(1, l.width()), (maxH - 2 * pad) / Math.max(1, l.height()));
        double w = l.width() * scale + 2 * pad;
        double h = l.height() * scale + 2 * pad;
        for (Canvas c : new Canvas[] {base, overlay}) {
            c.setWidth(w);
            c.setHeight(h);
        }
        setPrefSize(w, h);
        GraphicsContext g = base.getGraphicsContext2D();
        g.clearRect(0, 0, w, h);
        GraphPainter.paintOverview(new FxPen(g), s, new GraphPainter.View(scale, pad, pad, w, h));
    }

    /** Redraws the view's rectangle; shows the map only while part of the graph is out of view, unless the user hid it. */
    void update() {
        if (scene == null) {
            return;
        }
        setVisible(enabled.get() && !camera.shows(scene.layout().bounds()));
        GraphicsContext g = overlay.getGraphicsContext2D();
        g.clearRect(0, 0, overlay.getWidth(), overlay.getHeight());
        GraphLayout.Box v = camera.visible();
        double x = Math.max(0, v.x() * scale + pad);
        double y = Math.max(0, v.y() * scale + pad);
        double x2 = Math.min(overlay.getWidth(), (v.x() + v.w()) * scale + pad);
        double y2 = Math.min(overlay.getHeight(), (v.y() + v.h()) * scale + pad);
        g.setFill(Color.web("#1f6feb", 0.12));
        g.fillRect(x, y, Math.max(2, x2 - x), Math.max(2, y2 - y));
        g.setStroke(Color.web("#1f6feb"));
        g.setLineWidth(1.5);
        g.strokeRect(x, y, Math.max(2, x2 - x), Math.max(2, y2 - y));
    }

    /** The layout point under a point of the drawing (the overlay canvas's coordinates). */
    double[] toLayout(double mx, double my) {
        return new double[] {(mx - pad) / scale, (my - pad) / scale};
    }

    /** The layout point under a point of the map (its own coordinates, border included). */
    double[] layoutAt(double x, double y) {
        var p = overlay.parentToLocal(x, y);
        return toLayout(p.getX(), p.getY());
    }

    /** Pixels of the map per layout unit. */
    double scale() {
        return scale;
    }

    private void moveTo(MouseEvent e) {
        double[] p = toLayout(e.getX(), e.getY());
        camera.centerOn(p[0], p[1]);
        moved.run();
        e.consume();
    }
}
