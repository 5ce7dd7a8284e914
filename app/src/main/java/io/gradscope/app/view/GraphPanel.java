package io.gradscope.app.view;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.viewmodel.GraphStates;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.app.viewmodel.SweepViewModel;
import io.gradscope.engine.trace.TraceGraph;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javafx.scene.input.MouseEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.StackPane;
import org.graphstream.graph.Edge;
import org.graphstream.graph.Graph;
import org.graphstream.graph.Node;
import org.graphstream.graph.implementations.MultiGraph;
import org.graphstream.ui.fx_viewer.FxViewPanel;
import org.graphstream.ui.fx_viewer.FxViewer;
import org.graphstream.ui.graphicGraph.GraphicElement;
import org.graphstream.ui.view.View;
import org.graphstream.ui.view.util.InteractiveElement;
import org.graphstream.ui.view.util.MouseManager;

/**
 * The computation graph in a GraphStream view, at the positions ELK gave it. It draws the layout
 * the view-model holds, restyles only the nodes and edges a step changed, and turns clicks into
 * commands (click: select; double-click a group: collapse or expand it).
 */
public final class GraphPanel extends StackPane {
    static {
        System.setProperty("org.graphstream.ui", "javafx");
    }

    /**
     * The sweep's states as per-node styles: GraphStream does not combine two classes' rules, and a
     * node keeps its kind's colours while the state changes its outline.
     */
    static final Map<Sweep.State, String> STATE_STYLE = Map.of(
            Sweep.State.CURRENT, "fill-color: #fff3b0; stroke-color: #e0a800; stroke-width: 3px; text-style: bold;",
            Sweep.State.VISITED, "stroke-color: #2e9d63; stroke-width: 2px;",
            Sweep.State.PENDING, "fill-color: #f4f5f7; stroke-color: #c8ccd4; text-color: #9aa1ad;");
    static final String SELECTED_STYLE = "stroke-color: #1f6feb; stroke-width: 3px;";

    /**
     * What every node style sets first. GraphStream merges a new {@code ui.style} into the node's
     * old one, so a property a state set (pending's grey text, current's bold) stays unless the next
     * style sets it again.
     */
    static final String RESET_STYLE = "stroke-width: 1.2px; text-color: #1d2433; text-style: normal;";

    /** Colours by kind (per node: GraphStream lets a per-node style override only what it sets itself). */
    static final Map<String, String> KIND_STYLE = Map.of(
            "input", "fill-color: #eef4ff; stroke-color: #5b7fc7;",
            "labels", "fill-color: #eef4ff; stroke-color: #5b7fc7;",
            "param", "fill-color: #fff4e5; stroke-color: #d08a2c;",
            "op", "fill-color: #ffffff; stroke-color: #8a93a6;",
            "objective", "fill-color: #f1e9ff; stroke-color: #7a4fd0; stroke-width: 2px;",
            "group", "fill-color: #eef0f4; stroke-color: #6b7385; stroke-width: 1.5px; text-style: bold;");

    private final SweepViewModel vm;
    private final Graph graph = new MultiGraph("computation");
    private final FxViewPanel panel;
    private final GraphCamera camera;
    private final Map<String, String> baseStyle = new HashMap<>();
    private final Map<String, String> shownStyle = new HashMap<>();
    private final Map<TraceGraph.Edge, Edge> drawnEdges = new HashMap<>();
    private GraphLayout.Result layout;
    /** An extra style per drawn node (an overlay's colour, a diagnosis), applied after its state; null: none. */
    private java.util.function.Function<String, String> decoration = key -> null;

    public GraphPanel(SweepViewModel vm) {
        this.vm = vm;
        setId("graph");
        graph.setAttribute("ui.stylesheet", GraphStyles.css());
        graph.setAttribute("ui.quality");
        graph.setAttribute("ui.antialias");
        FxViewer viewer = new FxViewer(graph, FxViewer.ThreadingModel.GRAPH_IN_GUI_THREAD);
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
        camera = new GraphCamera(panel, this, graph, () -> layout);
        panel.addEventFilter(MouseEvent.MOUSE_CLICKED, this::click);
        panel.addEventFilter(ScrollEvent.SCROLL, e -> zoom(e.getDeltaY() > 0 ? 0.85 : 1 / 0.85));
        vm.layout().addListener((o, a, b) -> {
            if (b != null) {
                show(vm.recorded().get().graph(), b);
            }
        });
        vm.graphChange().addListener((o, a, change) -> restyle(change));
        vm.inspection().addListener((o, a, b) -> camera.ensureVisible(vm.keyOf(vm.currentVertex())));
    }

    public FxViewPanel view() {
        return panel;
    }

    public Graph graph() {
        return graph;
    }

    public GraphLayout.Result currentLayout() {
        return layout;
    }

    /** The style a drawn node has now. */
    public String styleOf(String key) {
        return shownStyle.get(key);
    }

    public void fit() {
        camera.fit();
    }

    public void zoom(double factor) {
        camera.zoom(factor);
    }

    public void centerOn(String key) {
        camera.centerOn(key);
    }

    /** Sets the extra style of each drawn node (by key); call {@link #restyleAll()} when it changes. */
    public void setDecoration(java.util.function.Function<String, String> decoration) {
        this.decoration = decoration;
        restyleAll();
    }

    /** Restyles every drawn node and edge (after the decoration changed). */
    public void restyleAll() {
        if (vm.graphStates() != null && layout != null) {
            restyle(vm.graphStates().all());
        }
    }

    /** Replaces the drawing with a layout of {@code g}, styled as the view-model's states say. */
    private void show(TraceGraph g, GraphLayout.Result result) {
        this.layout = result;
        graph.clear();
        graph.setAttribute("ui.stylesheet", GraphStyles.css());
        graph.setAttribute("ui.quality");
        graph.setAttribute("ui.antialias");
        baseStyle.clear();
        shownStyle.clear();
        drawnEdges.clear();
        int boxes = 0;
        for (GraphLayout.GroupBox b : result.groups()) {
            Node n = graph.addNode("box:" + (boxes++) + ":" + b.path());
            n.setAttribute("xyz", b.box().cx(), -b.box().cy(), 0);
            n.setAttribute("ui.class", "groupbox");
            n.setAttribute("ui.label", b.name());
            n.setAttribute("ui.style", size(b.box()));
            n.setAttribute("group", b.path());
        }
        for (GraphLayout.DisplayNode d : result.nodes().values()) {
            Node n = graph.addNode(d.key());
            n.setAttribute("xyz", d.box().cx(), -d.box().cy(), 0);
            String cls;
            String label;
            if (d.vertex() >= 0) {
                TraceGraph.Vertex v = g.vertex(d.vertex());
                cls = v.kind().name().toLowerCase(Locale.ROOT);
                label = GraphLayout.label(v);
            } else {
                cls = "group";
                label = GraphLayout.groupLabel(d.group(), d.members());
                n.setAttribute("group", d.group());
            }
            baseStyle.put(d.key(), size(d.box()) + " " + RESET_STYLE + " " + KIND_STYLE.get(cls));
            n.setAttribute("ui.class", cls);
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
            drawnEdges.put(e.edge(), edge);
        }
        restyle(vm.graphStates().all());
        fit();
    }

    private static String size(GraphLayout.Box b) {
        return String.format(Locale.ROOT, "size: %.1fgu, %.1fgu;", b.w(), b.h());
    }

    /** Restyles the nodes and edges in {@code change} as the view-model's states say: only those. */
    private void restyle(GraphStates.Change change) {
        GraphStates states = vm.graphStates();
        if (change == null || states == null) {
            return;
        }
        for (String key : change.keys()) {
            Node n = graph.getNode(key);
            String base = baseStyle.get(key);
            if (n == null || base == null) {
                continue;
            }
            String st = STATE_STYLE.get(states.state(key));
            String extra = decoration.apply(key);
            String style = base + (st == null ? "" : " " + st) + (extra == null ? "" : " " + extra)
                    + (key.equals(states.selectedKey()) ? " " + SELECTED_STYLE : "");
            if (!style.equals(shownStyle.get(key))) {
                n.setAttribute("ui.style", style);
                shownStyle.put(key, style);
            }
        }
        for (TraceGraph.Edge e : change.edges()) {
            Edge edge = drawnEdges.get(e);
            if (edge == null) {
                continue;
            }
            String cls = switch (states.look(e)) {
                case ACTIVE -> "active";
                case PENDING -> "pending";
                case PLAIN -> null;
            };
            Object prev = edge.getAttribute("ui.class");
            if (cls == null && prev != null) {
                edge.removeAttribute("ui.class");
            } else if (cls != null && !cls.equals(prev)) {
                edge.setAttribute("ui.class", cls);
            }
        }
    }

    private void click(MouseEvent e) {
        if (camera.dragged()) {
            return;
        }
        GraphicElement el = panel.findGraphicElementAt(EnumSet.of(InteractiveElement.NODE), e.getX(), e.getY());
        String key = el == null ? null : el.getId();
        if (key != null && key.startsWith("box:")) {
            if (e.getClickCount() == 2) {
                vm.toggleGroup(key.substring(key.indexOf(':', 4) + 1));
            }
            return;
        }
        if (e.getClickCount() == 2) {
            if (key != null && key.startsWith("g:")) {
                vm.toggleGroup(key.substring(2));
            }
            return;
        }
        requestFocus();
        vm.selectKey(key);
    }
}
