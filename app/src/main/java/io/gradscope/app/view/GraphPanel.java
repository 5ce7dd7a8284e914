package io.gradscope.app.view;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.engine.program.ProgramGraph;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.StackPane;
import org.graphstream.graph.Edge;
import org.graphstream.graph.Graph;
import org.graphstream.graph.Node;
import org.graphstream.graph.implementations.MultiGraph;
import org.graphstream.ui.fx_viewer.FxViewPanel;
import org.graphstream.ui.fx_viewer.FxViewer;
import org.graphstream.ui.geom.Point3;
import org.graphstream.ui.graphicGraph.GraphicElement;
import org.graphstream.ui.view.View;
import org.graphstream.ui.view.camera.Camera;
import org.graphstream.ui.view.util.InteractiveElement;
import org.graphstream.ui.view.util.MouseManager;

/**
 * The computation graph in a GraphStream view, at the positions ELK gave it. It draws and reports
 * clicks; which node is current, visited or selected comes from outside ({@link #setClasses}).
 */
public final class GraphPanel extends StackPane {
    static {
        System.setProperty("org.graphstream.ui", "javafx");
    }

    private final Graph graph = new MultiGraph("computation");
    private final FxViewer viewer;
    private final FxViewPanel panel;
    private final Map<String, String> baseClass = new HashMap<>();
    private final Map<String, String> sizeStyle = new HashMap<>();
    private final Map<String, String> shownStyle = new HashMap<>();

    /**
     * The sweep's states as per-node styles: GraphStream does not combine two classes' rules, and a
     * node keeps its kind's colours while the state changes its outline.
     */
    static final Map<String, String> STATE_STYLE = Map.of(
            "current", "fill-color: #fff3b0; stroke-color: #e0a800; stroke-width: 3px; text-style: bold;",
            "visited", "stroke-color: #2e9d63; stroke-width: 2px;",
            "pending", "fill-color: #f4f5f7; stroke-color: #c8ccd4; text-color: #9aa1ad;");
    static final String SELECTED_STYLE = "stroke-color: #1f6feb; stroke-width: 3px;";

    /** Colours by kind (per node: GraphStream lets a per-node style override only what it sets itself). */
    static final Map<String, String> KIND_STYLE = Map.of(
            "input", "fill-color: #eef4ff; stroke-color: #5b7fc7;",
            "labels", "fill-color: #eef4ff; stroke-color: #5b7fc7;",
            "param", "fill-color: #fff4e5; stroke-color: #d08a2c;",
            "op", "fill-color: #ffffff; stroke-color: #8a93a6;",
            "objective", "fill-color: #f1e9ff; stroke-color: #7a4fd0; stroke-width: 2px;",
            "group", "fill-color: #eef0f4; stroke-color: #6b7385; stroke-width: 1.5px;");
    private GraphLayout.Result layout;
    private Consumer<String> onClick = k -> { };
    private Consumer<String> onDoubleClick = k -> { };
    private double dragX;
    private double dragY;
    private boolean dragged;

    public GraphPanel() {
        graph.setAttribute("ui.stylesheet", GraphStyles.css());
        graph.setAttribute("ui.quality");
        graph.setAttribute("ui.antialias");
        viewer = new FxViewer(graph, FxViewer.ThreadingModel.GRAPH_IN_GUI_THREAD);
        viewer.disableAutoLayout();
        panel = (FxViewPanel) viewer.addDefaultView(false);
        panel.getCamera().setAutoFitView(true);
        // Nodes stay where ELK put them: no dragging of nodes, our own pan and zoom.
        panel.setMouseManager(new MouseManager() {
            @Override
            public void init(org.graphstream.ui.graphicGraph.GraphicGraph g, View v) {
            }

            @Override
            public void release() {
            }

            @Override
            public EnumSet<InteractiveElement> getManagedTypes() {
                return EnumSet.noneOf(InteractiveElement.class);
            }
        });
        getChildren().add(panel);
        setMinSize(200, 200);
        panel.addEventFilter(MouseEvent.MOUSE_PRESSED, e -> {
            dragX = e.getX();
            dragY = e.getY();
            dragged = false;
        });
        panel.addEventFilter(MouseEvent.MOUSE_DRAGGED, this::pan);
        panel.addEventFilter(MouseEvent.MOUSE_CLICKED, this::click);
        panel.addEventFilter(ScrollEvent.SCROLL, e -> zoom(e.getDeltaY() > 0 ? 0.85 : 1 / 0.85));
    }

    public void setOnNodeClicked(Consumer<String> c) {
        onClick = c;
    }

    public void setOnNodeDoubleClicked(Consumer<String> c) {
        onDoubleClick = c;
    }

    public FxViewPanel view() {
        return panel;
    }

    public Graph graph() {
        return graph;
    }

    /** Replaces the drawing with a new layout of {@code g}. */
    public void show(ProgramGraph g, GraphLayout.Result result, Map<String, Integer> groupSizes) {
        this.layout = result;
        graph.clear();
        graph.setAttribute("ui.stylesheet", GraphStyles.css());
        graph.setAttribute("ui.quality");
        graph.setAttribute("ui.antialias");
        baseClass.clear();
        sizeStyle.clear();
        shownStyle.clear();
        int boxes = 0;
        for (GraphLayout.GroupBox b : result.groups()) {
            Node n = graph.addNode("box:" + (boxes++) + ":" + b.path());
            n.setAttribute("xyz", b.box().cx(), -b.box().cy(), 0);
            n.setAttribute("ui.class", "groupbox");
            n.setAttribute("ui.label", b.name());
            n.setAttribute("ui.style", String.format(java.util.Locale.ROOT, "size: %.1fgu, %.1fgu;", b.box().w(), b.box().h()));
            n.setAttribute("group", b.path());
        }
        for (GraphLayout.DisplayNode d : result.nodes().values()) {
            Node n = graph.addNode(d.key());
            n.setAttribute("xyz", d.box().cx(), -d.box().cy(), 0);
            String size = String.format(java.util.Locale.ROOT, "size: %.1fgu, %.1fgu;", d.box().w(), d.box().h());
            String cls;
            String label;
            if (d.vertex() >= 0) {
                ProgramGraph.Vertex v = g.vertices().get(d.vertex());
                cls = v.kind().name().toLowerCase(java.util.Locale.ROOT);
                label = GraphLayout.label(v);
            } else {
                cls = "group";
                label = GraphLayout.groupLabel(d.group(), groupSizes.getOrDefault(d.group(), 0));
                n.setAttribute("group", d.group());
            }
            baseClass.put(d.key(), cls);
            String base = size + " " + KIND_STYLE.get(cls);
            sizeStyle.put(d.key(), base);
            shownStyle.put(d.key(), base);
            n.setAttribute("ui.class", cls);
            n.setAttribute("ui.style", base);
            n.setAttribute("ui.label", label);
        }
        int i = 0;
        for (GraphLayout.DisplayEdge e : result.edges()) {
            Edge edge = graph.addEdge("e" + (i++) + ":" + e.edge().from() + ">" + e.edge().to() + "#" + e.edge().input(),
                    e.from(), e.to(), true);
            List<double[]> pts = e.points();
            double[] flat = new double[pts.size() * 3];
            for (int k = 0; k < pts.size(); k++) {
                flat[3 * k] = pts.get(k)[0];
                flat[3 * k + 1] = -pts.get(k)[1];
            }
            edge.setAttribute("ui.points", (Object) flat);
            edge.setAttribute("from", e.edge().from());
            edge.setAttribute("to", e.edge().to());
            edge.setAttribute("input", e.edge().input());
        }
        fit();
    }

    public GraphLayout.Result currentLayout() {
        return layout;
    }

    /**
     * Styles each node by its state ("current", "visited", "pending" or none) and the selection;
     * edges in {@code active} light up, those in {@code pending} are dimmed. Only changed nodes are touched.
     */
    public void setClasses(Map<String, String> stateByKey, String selectedKey, Set<ProgramGraph.Edge> active,
                           Set<ProgramGraph.Edge> pending) {
        for (String key : baseClass.keySet()) {
            Node n = graph.getNode(key);
            if (n == null) {
                continue;
            }
            String st = stateByKey.get(key);
            String style = sizeStyle.get(key) + (st == null ? "" : " " + STATE_STYLE.get(st))
                    + (key.equals(selectedKey) ? " " + SELECTED_STYLE : "");
            if (!style.equals(shownStyle.get(key))) {
                n.setAttribute("ui.style", style);
                shownStyle.put(key, style);
            }
        }
        graph.edges().forEach(e -> {
            ProgramGraph.Edge pe = new ProgramGraph.Edge((Integer) e.getAttribute("from"), (Integer) e.getAttribute("to"),
                    (Integer) e.getAttribute("input"));
            String cls = active.contains(pe) ? "active" : pending.contains(pe) ? "pending" : null;
            Object prev = e.getAttribute("ui.class");
            if (cls == null && prev != null) {
                e.removeAttribute("ui.class");
            } else if (cls != null && !cls.equals(prev)) {
                e.setAttribute("ui.class", cls);
            }
        });
    }

    /** The style a display node is drawn with now (for tests). */
    public String styleOf(String key) {
        return shownStyle.get(key);
    }

    /**
     * Shows the whole graph, at most at one pixel per layout unit (so labels fit their boxes).
     * GraphStream's own fit only sees node centres; the view percent corrects for the boxes.
     */
    public void fit() {
        lastFit = System.nanoTime();
        Camera c = panel.getCamera();
        c.resetView();
        if (layout == null || layout.nodes().isEmpty()) {
            return;
        }
        double pw = panel.getWidth() > 0 ? panel.getWidth() : getWidth();
        double ph = panel.getHeight() > 0 ? panel.getHeight() : getHeight();
        if (pw <= 0 || ph <= 0) {
            // Not laid out yet: fit again once the panel has a size.
            javafx.application.Platform.runLater(this::fit);
            return;
        }
        double minX = Double.MAX_VALUE;
        double maxX = -Double.MAX_VALUE;
        double minY = Double.MAX_VALUE;
        double maxY = -Double.MAX_VALUE;
        for (GraphLayout.DisplayNode d : layout.nodes().values()) {
            minX = Math.min(minX, d.box().cx());
            maxX = Math.max(maxX, d.box().cx());
            minY = Math.min(minY, d.box().cy());
            maxY = Math.max(maxY, d.box().cy());
        }
        double pad = 2 * PADDING_PX;
        double ratioCenters = Math.min((pw - pad) / Math.max(maxX - minX, 1), (ph - pad) / Math.max(maxY - minY, 1));
        double ratioBoxes = Math.min(1.5, Math.min((pw - pad) / Math.max(layout.width(), 1), (ph - pad) / Math.max(layout.height(), 1)));
        c.setViewCenter((minX + maxX) / 2, -(minY + maxY) / 2, 0);
        // Below 3/4 of a pixel per unit the labels no longer fit their boxes: start at 1:1 instead
        // (the sweep keeps its current node in view; Fit shows everything).
        double ratio = ratioBoxes >= 0.75 ? ratioBoxes : 1.0;
        c.setViewPercent(Math.max(0.05, ratioCenters / ratio));
    }

    /** Pans so that a display node is in view (when it is not already). */
    public void ensureVisible(String key) {
        Node n = graph.getNode(key);
        if (n == null || panel.getWidth() <= 0 || System.nanoTime() - lastFit < 500_000_000L) {
            return;
        }
        Object[] xyz = (Object[]) n.getAttribute("xyz");
        double x = ((Number) xyz[0]).doubleValue();
        double y = ((Number) xyz[1]).doubleValue();
        Camera c = panel.getCamera();
        Point3 px = c.transformGuToPx(x, y, 0);
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

    /** When the view was last fitted: the camera's pixel transform is stale until the next frame. */
    private long lastFit;

    /** The graph's padding in the stylesheet, in pixels. */
    static final double PADDING_PX = 30;

    public void zoom(double factor) {
        Camera c = panel.getCamera();
        c.setViewPercent(Math.max(0.05, Math.min(4, c.getViewPercent() * factor)));
    }

    /** Centers the view on a display node. */
    public void centerOn(String key) {
        Node n = graph.getNode(key);
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

    private void click(MouseEvent e) {
        if (dragged) {
            return;
        }
        GraphicElement el = panel.findGraphicElementAt(EnumSet.of(InteractiveElement.NODE), e.getX(), e.getY());
        String key = el == null ? null : el.getId();
        if (key != null && key.startsWith("box:")) {
            if (e.getClickCount() == 2) {
                onDoubleClick.accept("g:" + key.substring(key.indexOf(':', 4) + 1));
            }
            return;
        }
        if (e.getClickCount() == 2 && key != null) {
            onDoubleClick.accept(key);
        } else {
            onClick.accept(key);
        }
    }
}
