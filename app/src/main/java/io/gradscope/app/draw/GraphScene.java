package io.gradscope.app.draw;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.layout.Hierarchy;
import io.gradscope.app.viewmodel.Decorator;
import io.gradscope.app.viewmodel.GraphStates;
import io.gradscope.engine.trace.TraceGraph;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A layout ready to draw, in arrays (10,000 nodes are drawn every frame): the nodes' boxes, labels
 * and looks, the edges' routes and looks, the containers' boxes. Looks change in place, a step's
 * few at a time ({@link #restyle}); the rest is fixed for the layout.
 */
public final class GraphScene {
    final GraphLayout.Result layout;
    final String[] keys;
    final double[][] boxes;
    final String[] labels;
    final String[] briefs;
    final String[] kinds;
    final Looks.NodeLook[] looks;
    final double[][] routes;
    /** Per edge: min x, min y, max x, max y. */
    final double[][] edgeBounds;
    final TraceGraph.Edge[] edges;
    final Looks.EdgeLook[] edgeLooks;
    final GraphLayout.GroupBox[] groups;
    private final Map<String, Integer> nodeIndex = new HashMap<>();
    private List<Decorator> decorators = List.of();
    private final Map<TraceGraph.Edge, int[]> edgeIndex = new HashMap<>();

    public GraphScene(TraceGraph graph, GraphLayout.Result layout) {
        this.layout = layout;
        int n = layout.nodes().size();
        keys = new String[n];
        boxes = new double[n][];
        labels = new String[n];
        briefs = new String[n];
        kinds = new String[n];
        looks = new Looks.NodeLook[n];
        int i = 0;
        for (GraphLayout.DisplayNode d : layout.nodes().values()) {
            keys[i] = d.key();
            GraphLayout.Box b = d.box();
            boxes[i] = new double[] {b.x(), b.y(), b.w(), b.h()};
            labels[i] = d.label();
            briefs[i] = d.shortLabel();
            kinds[i] = d.vertex() >= 0 ? graph.vertex(d.vertex()).kind().name().toLowerCase(Locale.ROOT) : "group";
            looks[i] = Looks.node(kinds[i], null, false);
            nodeIndex.put(d.key(), i);
            i++;
        }
        List<GraphLayout.DisplayEdge> es = layout.edges();
        routes = new double[es.size()][];
        edgeBounds = new double[es.size()][];
        edges = new TraceGraph.Edge[es.size()];
        edgeLooks = new Looks.EdgeLook[es.size()];
        for (int e = 0; e < es.size(); e++) {
            List<double[]> pts = es.get(e).points();
            double[] xy = new double[pts.size() * 2];
            double[] bb = {Double.MAX_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, -Double.MAX_VALUE};
            for (int k = 0; k < pts.size(); k++) {
                xy[2 * k] = pts.get(k)[0];
                xy[2 * k + 1] = pts.get(k)[1];
                bb[0] = Math.min(bb[0], xy[2 * k]);
                bb[1] = Math.min(bb[1], xy[2 * k + 1]);
                bb[2] = Math.max(bb[2], xy[2 * k]);
                bb[3] = Math.max(bb[3], xy[2 * k + 1]);
            }
            routes[e] = xy;
            edgeBounds[e] = bb;
            edges[e] = es.get(e).edge();
            edgeLooks[e] = Looks.EDGE;
            edgeIndex.computeIfAbsent(edges[e], x -> new int[0]);
            int[] old = edgeIndex.get(edges[e]);
            int[] grown = java.util.Arrays.copyOf(old, old.length + 1);
            grown[old.length] = e;
            edgeIndex.put(edges[e], grown);
        }
        groups = layout.groups().toArray(new GraphLayout.GroupBox[0]);
    }

    /** The decorators whose paint goes over the states' looks at the next {@link #restyle}. */
    public void setDecorators(List<Decorator> decorators) {
        this.decorators = List.copyOf(decorators);
    }

    public GraphLayout.Result layout() {
        return layout;
    }

    /** The index of a drawn node, or -1. */
    public int indexOf(String key) {
        return nodeIndex.getOrDefault(key, -1);
    }

    public int size() {
        return keys.length;
    }

    public String key(int i) {
        return keys[i];
    }

    /** A node's box: x, y, w, h. */
    public double[] box(int i) {
        return boxes[i];
    }

    public Looks.NodeLook look(String key) {
        int i = indexOf(key);
        return i < 0 ? null : looks[i];
    }

    public Looks.EdgeLook edgeLook(int e) {
        return edgeLooks[e];
    }

    /** The layout area of what {@code change} touches (boxes and routes), or null when nothing is drawn of it. */
    public GraphLayout.Box bounds(GraphStates.Change change) {
        double[] bb = {Double.MAX_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, -Double.MAX_VALUE};
        for (String key : change.keys()) {
            int i = indexOf(key);
            if (i >= 0) {
                grow(bb, boxes[i][0], boxes[i][1], boxes[i][0] + boxes[i][2], boxes[i][1] + boxes[i][3]);
            }
        }
        for (TraceGraph.Edge e : change.edges()) {
            int[] at = edgeIndex.get(e);
            if (at != null) {
                for (int k : at) {
                    grow(bb, edgeBounds[k][0], edgeBounds[k][1], edgeBounds[k][2], edgeBounds[k][3]);
                }
            }
        }
        return bb[0] > bb[2] ? null : new GraphLayout.Box(bb[0], bb[1], bb[2] - bb[0], bb[3] - bb[1]);
    }

    private static void grow(double[] bb, double x0, double y0, double x1, double y1) {
        bb[0] = Math.min(bb[0], x0);
        bb[1] = Math.min(bb[1], y0);
        bb[2] = Math.max(bb[2], x1);
        bb[3] = Math.max(bb[3], y1);
    }

    /** Sets the looks of the nodes and edges in {@code change} from {@code states}; says which nodes changed look. */
    public int restyle(GraphStates states, GraphStates.Change change) {
        int changed = 0;
        for (String key : change.keys()) {
            int i = indexOf(key);
            if (i < 0) {
                continue;
            }
            Looks.NodeLook look = Looks.node(kinds[i], states.state(key), false);
            for (Decorator d : decorators) {
                look = Looks.paint(look, d.node(key));
            }
            if (key.equals(states.selectedKey())) {
                look = Looks.selected(look);
            }
            if (!look.equals(looks[i])) {
                looks[i] = look;
                changed++;
            }
        }
        for (TraceGraph.Edge e : change.edges()) {
            int[] at = edgeIndex.get(e);
            if (at != null) {
                Looks.EdgeLook look = Looks.edge(states.look(e));
                for (Decorator d : decorators) {
                    String c = d.edge(e);
                    if (c != null) {
                        look = Looks.lit(c);
                    }
                }
                for (int k : at) {
                    edgeLooks[k] = look;
                }
            }
        }
        return changed;
    }

    /** The innermost container box at a point (layout units), or null. */
    public GraphLayout.GroupBox groupAt(double x, double y) {
        for (int g = groups.length - 1; g >= 0; g--) {
            if (groups[g].box().contains(x, y)) {
                return groups[g];
            }
        }
        return null;
    }

    /** The node at a point (layout units), or null. */
    public String nodeAt(double x, double y) {
        for (int i = keys.length - 1; i >= 0; i--) {
            double[] b = boxes[i];
            if (x >= b[0] && x <= b[0] + b[2] && y >= b[1] && y <= b[1] + b[3]) {
                return keys[i];
            }
        }
        return null;
    }

    /** Whether a container box is a run of repeated blocks. */
    static boolean isRun(GraphLayout.GroupBox g) {
        return g.kind() == Hierarchy.Kind.REPEAT;
    }
}
