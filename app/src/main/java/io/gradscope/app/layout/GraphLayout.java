package io.gradscope.app.layout;

import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.elk.alg.layered.options.LayeredMetaDataProvider;
import org.eclipse.elk.alg.layered.options.LayeredOptions;
import org.eclipse.elk.core.RecursiveGraphLayoutEngine;
import org.eclipse.elk.core.data.LayoutMetaDataService;
import org.eclipse.elk.core.math.ElkPadding;
import org.eclipse.elk.core.options.CoreOptions;
import org.eclipse.elk.core.options.Direction;
import org.eclipse.elk.core.options.EdgeRouting;
import org.eclipse.elk.core.options.HierarchyHandling;
import org.eclipse.elk.core.util.BasicProgressMonitor;
import org.eclipse.elk.graph.ElkEdge;
import org.eclipse.elk.graph.ElkEdgeSection;
import org.eclipse.elk.graph.ElkNode;
import org.eclipse.elk.graph.ElkBendPoint;
import org.eclipse.elk.graph.util.ElkGraphUtil;

/**
 * Positions for a trace's graph from ELK's layered layout (top to bottom, orthogonal edges),
 * with each expanded group as a box around its members and each collapsed group as one node.
 * No JavaFX here: the result is plain numbers (y grows downward, as in ELK).
 */
public final class GraphLayout {
    private static boolean registered;

    private GraphLayout() {
    }

    /** A leaf with more consumers than this has its edges drawn straight: see Note [Shared leaves]. */
    static final int SHARED_LEAF_USES = 16;

    /** A box in layout coordinates. */
    public record Box(double x, double y, double w, double h) {
        public double cx() {
            return x + w / 2;
        }

        public double cy() {
            return y + h / 2;
        }
    }

    /**
     * A drawn node: a vertex ({@code vertex >= 0}) or a collapsed group ({@code group} its path,
     * {@code members} how many vertices it holds). {@code key} is "v12" or "g:outer/inner".
     */
    public record DisplayNode(String key, int vertex, String group, int members, Box box) {
    }

    /** An expanded group's box. */
    public record GroupBox(String path, String name, Box box) {
    }

    /** An edge between display nodes, routed through {@code points} (start, bends, end). */
    public record DisplayEdge(String from, String to, TraceGraph.Edge edge, List<double[]> points) {
    }

    /** The layout of a graph with the groups in {@code collapsed} (paths) drawn as one node each. */
    public record Result(Map<String, DisplayNode> nodes, List<GroupBox> groups, List<DisplayEdge> edges, double width,
                         double height, Set<String> collapsed) {
    }

    private static synchronized void register() {
        if (!registered) {
            LayoutMetaDataService.getInstance().registerLayoutMetaDataProviders(new LayeredMetaDataProvider());
            registered = true;
        }
    }

    /** The display key of a vertex: its own, or that of its outermost collapsed group. */
    public static String keyOf(TraceGraph.Vertex v, Set<String> collapsed) {
        String path = "";
        for (String g : v.groups()) {
            path = path.isEmpty() ? g : path + "/" + g;
            if (collapsed.contains(path)) {
                return "g:" + path;
            }
        }
        return "v" + v.index();
    }

    /**
     * A vertex's label, read like the program: "h = relu [4, 2]" for a named op, "relu [4, 2]" for an
     * unnamed one, "W [3, 2]" for a leaf (its colour says which kind). Long op attributes are cut.
     */
    public static String label(TraceGraph.Vertex v) {
        String shape = Shapes.str(v.value().shape());
        String op = v.op();
        int paren = op.indexOf('(');
        if (op.length() > 14 && paren > 0) {
            op = op.substring(0, paren);
        }
        return switch (v.kind()) {
            case INPUT, PARAM, LABELS -> v.name() + " " + shape;
            default -> v.name() != null ? v.name() + " = " + op + " " + shape : op + " " + shape;
        };
    }

    /** A collapsed group's label. */
    public static String groupLabel(String path, int members) {
        return "▸ " + path.substring(path.lastIndexOf('/') + 1) + "  (" + members + " nodes)";
    }

    static double width(String... lines) {
        int n = 0;
        for (String s : lines) {
            n = Math.max(n, s.length());
        }
        return Math.max(48, 6.6 * n + 16);
    }

    public static Result layout(TraceGraph graph, Set<String> collapsed) {
        register();
        ElkNode root = ElkGraphUtil.createGraph();
        root.setProperty(CoreOptions.ALGORITHM, "org.eclipse.elk.layered");
        root.setProperty(CoreOptions.DIRECTION, Direction.DOWN);
        root.setProperty(CoreOptions.EDGE_ROUTING, EdgeRouting.ORTHOGONAL);
        root.setProperty(CoreOptions.HIERARCHY_HANDLING, HierarchyHandling.INCLUDE_CHILDREN);
        root.setProperty(LayeredOptions.SPACING_NODE_NODE_BETWEEN_LAYERS, 36.0);
        root.setProperty(CoreOptions.SPACING_NODE_NODE, 24.0);
        Map<String, ElkNode> groupNodes = new LinkedHashMap<>();
        Map<String, ElkNode> elk = new LinkedHashMap<>();
        Map<String, Integer> members = new HashMap<>();
        for (TraceGraph.Vertex v : graph.vertices()) {
            String key = keyOf(v, collapsed);
            if (key.startsWith("g:")) {
                members.merge(key, 1, Integer::sum);
            }
        }
        Map<String, String> keyGroup = new HashMap<>();
        for (TraceGraph.Vertex v : graph.vertices()) {
            String key = keyOf(v, collapsed);
            if (elk.containsKey(key)) {
                continue;
            }
            // The parent: the innermost expanded group that encloses this display node.
            ElkNode parent = root;
            String path = "";
            List<String> groups = v.groups();
            String own = key.startsWith("g:") ? key.substring(2) : null;
            for (String g : groups) {
                String next = path.isEmpty() ? g : path + "/" + g;
                if (next.equals(own)) {
                    break;
                }
                path = next;
                ElkNode gn = groupNodes.get(path);
                if (gn == null) {
                    gn = ElkGraphUtil.createNode(parent);
                    gn.setIdentifier("group:" + path);
                    gn.setProperty(CoreOptions.PADDING, new ElkPadding(28, 12, 12, 12));
                    groupNodes.put(path, gn);
                }
                parent = gn;
            }
            ElkNode n = ElkGraphUtil.createNode(parent);
            n.setIdentifier(key);
            if (own != null) {
                n.setDimensions(width(groupLabel(own, members.get(key))), 34);
                keyGroup.put(key, own);
            } else {
                n.setDimensions(width(label(v)), 30);
            }
            elk.put(key, n);
        }
        // Note [Shared leaves]: a leaf feeding many layers (tied weights) would make ELK add a dummy
        // node on every layer each of its edges crosses (500 uses of one weight: 40 s). Its edges are
        // left out of the layout and drawn straight instead.
        Map<Integer, Integer> uses = new HashMap<>();
        for (TraceGraph.Edge e : graph.edges()) {
            uses.merge(e.from(), 1, Integer::sum);
        }
        List<ElkEdge> elkEdges = new ArrayList<>();
        List<TraceGraph.Edge> kept = new ArrayList<>();
        List<TraceGraph.Edge> straight = new ArrayList<>();
        for (TraceGraph.Edge e : graph.edges()) {
            TraceGraph.Vertex from = graph.vertices().get(e.from());
            String a = keyOf(from, collapsed);
            String b = keyOf(graph.vertices().get(e.to()), collapsed);
            if (a.equals(b)) {
                continue;
            }
            boolean leaf = from.kind() != TraceGraph.Kind.OP && from.kind() != TraceGraph.Kind.OBJECTIVE;
            if (leaf && uses.get(e.from()) > SHARED_LEAF_USES) {
                straight.add(e);
                continue;
            }
            ElkEdge edge = ElkGraphUtil.createSimpleEdge(elk.get(a), elk.get(b));
            ElkGraphUtil.updateContainment(edge);
            elkEdges.add(edge);
            kept.add(e);
        }
        new RecursiveGraphLayoutEngine().layout(root, new BasicProgressMonitor());

        Map<String, DisplayNode> nodes = new LinkedHashMap<>();
        for (Map.Entry<String, ElkNode> en : elk.entrySet()) {
            ElkNode n = en.getValue();
            double[] at = absolute(n);
            String key = en.getKey();
            nodes.put(key, new DisplayNode(key, key.startsWith("v") ? Integer.parseInt(key.substring(1)) : -1,
                    keyGroup.get(key), members.getOrDefault(key, 1), new Box(at[0], at[1], n.getWidth(), n.getHeight())));
        }
        List<GroupBox> groups = new ArrayList<>();
        for (Map.Entry<String, ElkNode> en : groupNodes.entrySet()) {
            ElkNode n = en.getValue();
            double[] at = absolute(n);
            String path = en.getKey();
            groups.add(new GroupBox(path, path.substring(path.lastIndexOf('/') + 1), new Box(at[0], at[1], n.getWidth(), n.getHeight())));
        }
        List<DisplayEdge> edges = new ArrayList<>();
        for (int i = 0; i < elkEdges.size(); i++) {
            ElkEdge e = elkEdges.get(i);
            ElkNode container = e.getContainingNode();
            double[] off = container == null ? new double[2] : absoluteInner(container);
            List<double[]> pts = new ArrayList<>();
            if (!e.getSections().isEmpty()) {
                ElkEdgeSection s = e.getSections().get(0);
                pts.add(new double[] {s.getStartX() + off[0], s.getStartY() + off[1]});
                for (ElkBendPoint p : s.getBendPoints()) {
                    pts.add(new double[] {p.getX() + off[0], p.getY() + off[1]});
                }
                pts.add(new double[] {s.getEndX() + off[0], s.getEndY() + off[1]});
            }
            String from = ((ElkNode) e.getSources().get(0)).getIdentifier();
            String to = ((ElkNode) e.getTargets().get(0)).getIdentifier();
            edges.add(new DisplayEdge(from, to, kept.get(i), pts));
        }
        for (TraceGraph.Edge e : straight) {
            String a = keyOf(graph.vertices().get(e.from()), collapsed);
            String b = keyOf(graph.vertices().get(e.to()), collapsed);
            Box from = nodes.get(a).box();
            Box to = nodes.get(b).box();
            edges.add(new DisplayEdge(a, b, e, List.of(new double[] {from.cx(), from.y() + from.h()}, new double[] {to.cx(), to.y()})));
        }
        return new Result(nodes, groups, edges, root.getWidth(), root.getHeight(), Set.copyOf(collapsed));
    }

    /** A node's top-left corner in root coordinates. */
    private static double[] absolute(ElkNode n) {
        double x = n.getX();
        double y = n.getY();
        for (ElkNode p = n.getParent(); p != null && p.getParent() != null; p = p.getParent()) {
            x += p.getX();
            y += p.getY();
        }
        return new double[] {x, y};
    }

    /** The origin of coordinates inside a node (edge sections are relative to their container). */
    private static double[] absoluteInner(ElkNode n) {
        if (n.getParent() == null) {
            return new double[2];
        }
        return absolute(n);
    }
}
