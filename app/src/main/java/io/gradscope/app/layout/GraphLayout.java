package io.gradscope.app.layout;

import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Positions for a trace's graph: each expanded container (a group, a run of repeated blocks, a
 * block) is a box around its members, each collapsed one a single node. No JavaFX here: the result
 * is plain numbers (y grows downward, as in ELK). One {@code GraphLayout} per graph keeps the
 * layouts of its containers, so collapsing or expanding one re-lays only it and its ancestors.
 *
 * <pre>{@code
 * GraphLayout layouts = GraphLayout.of(graph);
 * Result folded = layouts.layout(layouts.hierarchy().runs());   // repeats folded
 * Result all = layouts.layout(Set.of());                       // everything expanded
 * }</pre>
 */
public final class GraphLayout {
    /** A leaf with more consumers than this has its edges drawn straight: see Note [Shared leaves]. */
    static final int SHARED_LEAF_USES = 16;
    /** Node heights: a vertex, and a collapsed container. */
    static final double NODE_H = 30;
    static final double GROUP_H = 34;

    /** A box in layout coordinates. */
    public record Box(double x, double y, double w, double h) {
        public double cx() {
            return x + w / 2;
        }

        public double cy() {
            return y + h / 2;
        }

        public boolean contains(double px, double py) {
            return px >= x && px <= x + w && py >= y && py <= y + h;
        }
    }

    /**
     * A drawn node: a vertex ({@code vertex >= 0}) or a collapsed container ({@code group} its id,
     * {@code members} how many vertices it holds). {@code key} is "v12" or "g:outer/inner";
     * {@code label} what it says at full size, {@code shortLabel} when space is short.
     */
    public record DisplayNode(String key, int vertex, String group, int members, Box box, String label, String shortLabel) {
    }

    /** An expanded container's box. */
    public record GroupBox(String path, String name, Hierarchy.Kind kind, Box box) {
    }

    /** An edge between display nodes, routed through {@code points} (start, bends, end). */
    public record DisplayEdge(String from, String to, TraceGraph.Edge edge, List<double[]> points) {
    }

    /** The layout of a graph with the containers in {@code collapsed} drawn as one node each. */
    public record Result(Map<String, DisplayNode> nodes, List<GroupBox> groups, List<DisplayEdge> edges, double width,
                         double height, Set<String> collapsed, GraphLayout source) {
        /** The bounds of everything drawn. */
        public Box bounds() {
            return new Box(0, 0, width, height);
        }
    }

    private final TraceGraph graph;
    private final Hierarchy hierarchy;
    private final boolean[] shared;
    /**
     * Inputs feeding several ops get a layer of their own above the parameters, so that their edges
     * pass between the parameters instead of across their edges (q, k and v from x and Wq, Wk, Wv
     * cross nowhere).
     */
    private final boolean[] spread;
    private final Map<String, ContainerLayout.Inner> cache = new HashMap<>();
    private final Map<String, Integer> keyIds = new HashMap<>();
    private int elkRuns;

    private GraphLayout(TraceGraph graph) {
        this.graph = graph;
        this.hierarchy = Hierarchy.of(graph);
        // Note [Shared leaves]: a leaf feeding many layers (tied weights) would make ELK add a dummy
        // node on every layer each of its edges crosses (500 uses of one weight: 40 s). Its edges are
        // left out of the layout and drawn straight instead.
        int[] uses = new int[graph.size()];
        for (TraceGraph.Edge e : graph.edges()) {
            uses[e.from()]++;
        }
        shared = new boolean[graph.size()];
        spread = new boolean[graph.size()];
        for (TraceGraph.Vertex v : graph.vertices()) {
            boolean leaf = v.kind() != TraceGraph.Kind.OP && v.kind() != TraceGraph.Kind.OBJECTIVE;
            shared[v.index()] = leaf && uses[v.index()] > SHARED_LEAF_USES;
            spread[v.index()] = (v.kind() == TraceGraph.Kind.INPUT || v.kind() == TraceGraph.Kind.LABELS) && uses[v.index()] > 1
                    && !shared[v.index()];
        }
    }

    /** The layouts of one graph (cached per container). */
    /** Loads and initialises the layout engine on a daemon thread (call at start, before the first file opens). */
    public static void warmUpInBackground() {
        ContainerLayout.warmUpInBackground();
    }

    public static GraphLayout of(TraceGraph graph) {
        return new GraphLayout(graph);
    }

    /** A one-off layout. */
    public static Result layout(TraceGraph graph, Set<String> collapsed) {
        return of(graph).layout(collapsed);
    }

    public TraceGraph graph() {
        return graph;
    }

    public Hierarchy hierarchy() {
        return hierarchy;
    }

    /** How many containers ELK has laid out so far (the rest came from the cache). */
    public synchronized int elkRuns() {
        return elkRuns;
    }

    /** A vertex's size as drawn: wide enough for its label in bold (the current node's). */
    /**
     * A folded section is at least this wide: one of a single op ("lines 347–409: add", the wide
     * program's summing tree) was 232 wide beside its neighbours' 330, too narrow at Fit for even its lines.
     */
    static final double SECTION_MIN_W = 304;

    /** The size of container {@code id} drawn collapsed, as one node. */
    static double[] collapsedSize(Hierarchy hierarchy, String id) {
        double[] s = size(hierarchy.collapsedLabel(id), GROUP_H);
        if (hierarchy.container(id).kind() == Hierarchy.Kind.SECTION) {
            s[0] = Math.max(s[0], SECTION_MIN_W);
        }
        return s;
    }

    static double[] size(String label, double h) {
        double w = Math.max(48, TextWidth.of(label, TextWidth.SIZE, true) + 18);
        // Rounded up so that blocks whose names differ by a digit share one layout.
        return new double[] {Math.ceil(w / 8) * 8, h};
    }

    // Note [Layout per container]
    // Each expanded container is laid out by ELK on its own, with its expanded children as boxes of
    // known size whose ports sit on their top side (values entering) and bottom side (values
    // leaving). An edge between two vertices is then the concatenation of one route per level: up
    // out of the containers of its source, across their lowest common container, down into those of
    // its target. A container's layout depends only on its items' sizes, its children's layouts and
    // its wiring, so it is cached under a key made of exactly those: 150 equal blocks are laid out
    // once, and collapsing one group re-lays only the containers on its way to the root.

    /** The layout with the containers in {@code collapsed} drawn as one node each. */
    public synchronized Result layout(Set<String> collapsed) {
        return new Pass(Set.copyOf(collapsed)).run();
    }

    /** One layout: the levels of the expanded containers, laid out bottom-up, then composed. */
    private final class Pass {
        final Set<String> collapsed;
        /** Per vertex: its expanded containers, outermost first, and its drawn node. */
        final String[][] chain;
        final String[] key;
        /** Per expanded container: its items, ports and edges. */
        final Map<String, LevelBuilder> levels = new LinkedHashMap<>();
        final Map<String, ContainerLayout.Inner> inner = new HashMap<>();
        final Map<String, String> innerKey = new HashMap<>();

        Pass(Set<String> collapsed) {
            this.collapsed = collapsed;
            int n = graph.size();
            chain = new String[n][];
            key = new String[n];
            for (int v = 0; v < n; v++) {
                List<String> c = new ArrayList<>();
                String k = "v" + v;
                for (String id : hierarchy.chain(v)) {
                    if (collapsed.contains(id)) {
                        k = "g:" + id;
                        break;
                    }
                    c.add(id);
                }
                chain[v] = c.toArray(new String[0]);
                key[v] = k;
            }
        }

        LevelBuilder level(String id) {
            return levels.computeIfAbsent(id, LevelBuilder::new);
        }

        Result run() {
            build(Hierarchy.ROOT);
            List<TraceGraph.Edge> straight = new ArrayList<>();
            for (TraceGraph.Edge e : graph.edges()) {
                int u = e.from();
                int v = e.to();
                if (key[u].equals(key[v])) {
                    continue;
                }
                if (shared[u]) {
                    straight.add(e);
                    continue;
                }
                int common = common(u, v);
                String lca = common == 0 ? Hierarchy.ROOT : chain[u][common - 1];
                level(lca).link(End.from(at(u, common), u), End.to(at(v, common), u));
                for (int j = common; j < chain[u].length; j++) {
                    LevelBuilder l = level(chain[u][j]);
                    l.link(End.from(at(u, j + 1), u), l.ownOut(u));
                }
                for (int j = common; j < chain[v].length; j++) {
                    LevelBuilder l = level(chain[v][j]);
                    l.link(l.ownIn(u), End.to(at(v, j + 1), u));
                }
            }
            layOut(Hierarchy.ROOT);
            return compose(straight);
        }

        /** How many expanded containers u and v share. */
        int common(int u, int v) {
            int i = 0;
            while (i < chain[u].length && i < chain[v].length && chain[u][i].equals(chain[v][i])) {
                i++;
            }
            return i;
        }

        /** The item of the container at depth {@code depth} of u's chain that holds u: a child container ("c:id") or u's node. */
        String at(int u, int depth) {
            return depth < chain[u].length ? "c:" + chain[u][depth] : key[u];
        }

        /** Lists the items of an expanded container (and of its expanded descendants). */
        void build(String id) {
            LevelBuilder l = level(id);
            for (Hierarchy.Member m : hierarchy.container(id).members()) {
                if (m.isVertex()) {
                    l.items.add("v" + m.vertex());
                } else if (collapsed.contains(m.container())) {
                    l.items.add("g:" + m.container());
                } else {
                    l.items.add("c:" + m.container());
                    build(m.container());
                }
            }
            for (int i = 0; i < l.items.size(); i++) {
                l.index.put(l.items.get(i), i);
            }
        }

        /** Lays out a container after its expanded children; from the cache when its key is known. */
        ContainerLayout.Inner layOut(String id) {
            LevelBuilder l = levels.get(id);
            List<ContainerLayout.Item> items = new ArrayList<>();
            boolean section = !id.isEmpty() && hierarchy.container(id).kind() == Hierarchy.Kind.SECTION;
            StringBuilder k = new StringBuilder(id.isEmpty() ? "R" : section ? "S" : "C").append(l.inPorts.size()).append('/')
                    .append(l.outPorts.size()).append('[');
            for (String item : l.items) {
                if (item.startsWith("c:")) {
                    String child = item.substring(2);
                    ContainerLayout.Inner in = layOut(child);
                    items.add(new ContainerLayout.Item(in.w(), in.h(), in, false));
                    k.append('#').append(keyIds.get(innerKey.get(child)));
                } else {
                    double[] s = item.startsWith("v") ? size(Labels.full(graph.vertex(Integer.parseInt(item.substring(1)))), NODE_H)
                            : collapsedSize(hierarchy, item.substring(2));
                    boolean top = item.startsWith("v") && spread[Integer.parseInt(item.substring(1))];
                    boolean box = !item.startsWith("v");
                    items.add(new ContainerLayout.Item(s[0], s[1], null, top, box));
                    k.append((int) s[0]).append('x').append((int) s[1]).append(top ? "^" : "").append(box ? "b" : "");
                }
                k.append(',');
            }
            k.append(']');
            List<ContainerLayout.Edge> edges = l.edges(levels);
            for (ContainerLayout.Edge e : edges) {
                k.append(e.from().ordinal()).append(e.fromItem()).append('.').append(e.fromPort()).append('>')
                        .append(e.to().ordinal()).append(e.toItem()).append('.').append(e.toPort()).append(';');
            }
            String cacheKey = k.toString();
            keyIds.computeIfAbsent(cacheKey, x -> keyIds.size());
            innerKey.put(id, cacheKey);
            ContainerLayout.Inner result = cache.get(cacheKey);
            if (result == null) {
                result = ContainerLayout.layout(new ContainerLayout.Level(items, l.inPorts.size(), l.outPorts.size(), edges,
                        !id.isEmpty(), chainLike(hierarchy.container(id)), section));
                cache.put(cacheKey, result);
                elkRuns++;
            }
            inner.put(id, result);
            return result;
        }

        Result compose(List<TraceGraph.Edge> straight) {
            Map<String, DisplayNode> nodes = new LinkedHashMap<>();
            List<GroupBox> groups = new ArrayList<>();
            Map<String, double[]> origin = new HashMap<>();
            place(Hierarchy.ROOT, 0, 0, nodes, groups, origin);
            List<DisplayEdge> edges = new ArrayList<>();
            for (TraceGraph.Edge e : graph.edges()) {
                int u = e.from();
                int v = e.to();
                if (key[u].equals(key[v]) || shared[u]) {
                    continue;
                }
                int common = common(u, v);
                List<double[]> pts = new ArrayList<>();
                for (int j = chain[u].length - 1; j >= common; j--) {
                    String c = chain[u][j];
                    LevelBuilder l = levels.get(c);
                    append(pts, c, origin.get(c), l.find(End.from(at(u, j + 1), u), l.ownOut(u)));
                }
                String lca = common == 0 ? Hierarchy.ROOT : chain[u][common - 1];
                append(pts, lca, origin.get(lca), levels.get(lca).find(End.from(at(u, common), u), End.to(at(v, common), u)));
                for (int j = common; j < chain[v].length; j++) {
                    String c = chain[v][j];
                    LevelBuilder l = levels.get(c);
                    append(pts, c, origin.get(c), l.find(l.ownIn(u), End.to(at(v, j + 1), u)));
                }
                edges.add(new DisplayEdge(key[u], key[v], e, pts));
            }
            for (TraceGraph.Edge e : straight) {
                Box from = nodes.get(key[e.from()]).box();
                Box to = nodes.get(key[e.to()]).box();
                edges.add(new DisplayEdge(key[e.from()], key[e.to()], e,
                        List.of(new double[] {from.cx(), from.y() + from.h()}, new double[] {to.cx(), to.y()})));
            }
            ContainerLayout.Inner root = inner.get(Hierarchy.ROOT);
            return new Result(nodes, groups, edges, root.w(), root.h(), collapsed, GraphLayout.this);
        }

        void append(List<double[]> pts, String container, double[] at, int route) {
            if (route < 0) {
                return;
            }
            for (double[] p : inner.get(container).routes()[route]) {
                double[] q = {p[0] + at[0], p[1] + at[1]};
                if (pts.isEmpty() || !same(pts.get(pts.size() - 1), q)) {
                    pts.add(q);
                }
            }
        }

        void place(String id, double x, double y, Map<String, DisplayNode> nodes, List<GroupBox> groups, Map<String, double[]> origin) {
            ContainerLayout.Inner in = inner.get(id);
            origin.put(id, new double[] {x, y});
            Hierarchy.Container c = hierarchy.container(id);
            if (!id.isEmpty()) {
                groups.add(new GroupBox(id, c.name(), c.kind(), new Box(x, y, in.w(), in.h())));
            }
            LevelBuilder l = levels.get(id);
            for (int i = 0; i < l.items.size(); i++) {
                String item = l.items.get(i);
                double ix = x + in.items()[i][0];
                double iy = y + in.items()[i][1];
                if (item.startsWith("c:")) {
                    place(item.substring(2), ix, iy, nodes, groups, origin);
                } else if (item.startsWith("v")) {
                    TraceGraph.Vertex v = graph.vertex(Integer.parseInt(item.substring(1)));
                    String label = Labels.full(v);
                    double[] s = size(label, NODE_H);
                    nodes.put(item, new DisplayNode(item, v.index(), null, 1, new Box(ix, iy, s[0], s[1]), label, Labels.brief(v)));
                } else {
                    String g = item.substring(2);
                    String label = hierarchy.collapsedLabel(g);
                    double[] s = collapsedSize(hierarchy, g);
                    Hierarchy.Container gc = hierarchy.container(g);
                    // A section's short label is its lines ("lines 40–79"), without its ops.
                    String brief = gc.kind() == Hierarchy.Kind.SECTION && gc.name().contains(":")
                            ? gc.name().substring(0, gc.name().indexOf(':')) : gc.name();
                    nodes.put(item, new DisplayNode(item, -1, g, gc.size(), new Box(ix, iy, s[0], s[1]), label, "▸ " + brief));
                }
            }
        }
    }

    /** A run of blocks, or a container cut into sections: drawn as a grid when its items form a chain ({@link RunGrid}). */
    private static boolean chainLike(Hierarchy.Container c) {
        if (c.kind() == Hierarchy.Kind.REPEAT) {
            return true;
        }
        return c.members().size() > 1 && c.members().stream().allMatch(m -> m.container() != null && m.container().contains("§"));
    }

    private static boolean same(double[] a, double[] b) {
        return Math.abs(a[0] - b[0]) < 1e-9 && Math.abs(a[1] - b[1]) < 1e-9;
    }

    /** One end of an edge of a level: an item (NODE), a child's port for a value, or the container's own port for it. */
    private record End(ContainerLayout.End kind, String item, int source) {
        static End from(String item, int source) {
            return item.startsWith("c:") ? new End(ContainerLayout.End.CHILD_OUT, item, source) : new End(ContainerLayout.End.NODE, item, -1);
        }

        static End to(String item, int source) {
            return item.startsWith("c:") ? new End(ContainerLayout.End.CHILD_IN, item, source) : new End(ContainerLayout.End.NODE, item, -1);
        }
    }

    /** One expanded container's items and the edges among them, as a pass collects them. */
    private static final class LevelBuilder {
        final List<String> items = new ArrayList<>();
        final Map<String, Integer> index = new HashMap<>();
        /** Values entering (by source vertex, in order of first use) and leaving, each a port. */
        final Map<Integer, Integer> inPorts = new LinkedHashMap<>();
        final Map<Integer, Integer> outPorts = new LinkedHashMap<>();
        /** The edges, each once: edges of one value into a child share its port, edges between two nodes are one. */
        final Map<List<End>, Integer> edgeIndex = new LinkedHashMap<>();
        final List<End[]> edgeList = new ArrayList<>();

        LevelBuilder(String id) {
        }

        End ownIn(int source) {
            inPorts.computeIfAbsent(source, s -> inPorts.size());
            return new End(ContainerLayout.End.OWN_IN, null, source);
        }

        End ownOut(int source) {
            outPorts.computeIfAbsent(source, s -> outPorts.size());
            return new End(ContainerLayout.End.OWN_OUT, null, source);
        }

        void link(End from, End to) {
            edgeIndex.computeIfAbsent(List.of(from, to), k -> {
                edgeList.add(new End[] {from, to});
                return edgeList.size() - 1;
            });
        }

        int find(End from, End to) {
            return edgeIndex.getOrDefault(List.of(from, to), -1);
        }

        /** The edges with their ends as item and port numbers. */
        List<ContainerLayout.Edge> edges(Map<String, LevelBuilder> levels) {
            List<ContainerLayout.Edge> out = new ArrayList<>();
            for (End[] e : edgeList) {
                int[] a = resolve(e[0], levels);
                int[] b = resolve(e[1], levels);
                out.add(new ContainerLayout.Edge(e[0].kind(), a[0], a[1], e[1].kind(), b[0], b[1]));
            }
            return out;
        }

        private int[] resolve(End e, Map<String, LevelBuilder> levels) {
            return switch (e.kind()) {
                case NODE -> new int[] {index.get(e.item()), 0};
                case CHILD_OUT -> new int[] {index.get(e.item()), levels.get(e.item().substring(2)).outPorts.get(e.source())};
                case CHILD_IN -> new int[] {index.get(e.item()), levels.get(e.item().substring(2)).inPorts.get(e.source())};
                case OWN_IN -> new int[] {0, inPorts.get(e.source())};
                case OWN_OUT -> new int[] {0, outPorts.get(e.source())};
            };
        }
    }
}
