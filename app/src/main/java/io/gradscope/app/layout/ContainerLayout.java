package io.gradscope.app.layout;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.elk.alg.layered.options.LayerConstraint;
import org.eclipse.elk.alg.layered.options.LayeredMetaDataProvider;
import org.eclipse.elk.alg.layered.options.LayeredOptions;
import org.eclipse.elk.alg.layered.options.OrderingStrategy;
import org.eclipse.elk.core.RecursiveGraphLayoutEngine;
import org.eclipse.elk.core.data.LayoutMetaDataService;
import org.eclipse.elk.core.math.ElkPadding;
import org.eclipse.elk.core.options.CoreOptions;
import org.eclipse.elk.core.options.Direction;
import org.eclipse.elk.core.options.EdgeRouting;
import org.eclipse.elk.core.options.PortConstraints;
import org.eclipse.elk.core.options.PortSide;
import org.eclipse.elk.core.util.BasicProgressMonitor;
import org.eclipse.elk.graph.ElkBendPoint;
import org.eclipse.elk.graph.ElkConnectableShape;
import org.eclipse.elk.graph.ElkEdge;
import org.eclipse.elk.graph.ElkEdgeSection;
import org.eclipse.elk.graph.ElkNode;
import org.eclipse.elk.graph.ElkPort;
import org.eclipse.elk.graph.util.ElkGraphUtil;

/**
 * ELK's layered layout (top to bottom, orthogonal edges) of one container's contents, on its own:
 * its items (nodes, and expanded child containers as boxes of a known size with their ports fixed
 * on their top and bottom sides), plus a port node per value that enters it (first layer) or leaves
 * it (last layer). The result is relative to the container's top-left corner, and says where its
 * ports are, so its parent can lay it out as one box. See Note [Layout per container] in GraphLayout.
 */
final class ContainerLayout {
    /** A container's padding round its items, whatever lays them out (ELK, {@link RunGrid}, {@link WideLayers}). */
    static final double PAD = 14;
    /** The room at the top of a titled container for its title. */
    static final double TITLE = 30;
    private static boolean registered;

    private ContainerLayout() {
    }

    /** Where an edge starts or ends: an item, a port of a child box, or one of the container's own ports. */
    enum End { NODE, CHILD_OUT, CHILD_IN, OWN_IN, OWN_OUT }

    /** An edge of the level, from {@code (from, fromItem, fromPort)} to {@code (to, toItem, toPort)}. */
    record Edge(End from, int fromItem, int fromPort, End to, int toItem, int toPort) {
    }

    /**
     * An item: a node of a size, or an expanded child (its own layout); {@code top}: in a layer of its own
     * above the rest; {@code box}: a container (expanded, or collapsed into one box) rather than a node.
     */
    record Item(double w, double h, Inner child, boolean top, boolean box) {
        Item(double w, double h, Inner child, boolean top) {
            this(w, h, child, top, child != null);
        }
    }

    /**
     * What to lay out; {@code run}: a run of blocks, drawn as a grid when it is a chain ({@link RunGrid});
     * {@code section}: a section of a long program, its layers wrapped into bands when they would make a
     * tall thin column ({@link WideLayers}).
     */
    record Level(List<Item> items, int inPorts, int outPorts, List<Edge> edges, boolean titled, boolean run, boolean section) {
        Level(List<Item> items, int inPorts, int outPorts, List<Edge> edges, boolean titled, boolean run) {
            this(items, inPorts, outPorts, edges, titled, run, false);
        }
    }

    /**
     * A laid-out container: its size, each item's top-left corner, the x of each of its in-ports (on
     * its top side) and out-ports (bottom side), and each edge's route (start, bends, end).
     */
    record Inner(double w, double h, double[][] items, double[] inPortX, double[] outPortX, double[][][] routes) {
    }

    private static synchronized void register() {
        if (!registered) {
            LayoutMetaDataService.getInstance().registerLayoutMetaDataProviders(new LayeredMetaDataProvider());
            registered = true;
        }
    }

    /**
     * Lays out a small level once, on a daemon thread of its own: ELK's first layout in a JVM loads
     * and initialises a few hundred classes (about half of the first layout of a 1,000-node program),
     * which the app does while the first file is read, parsed and run instead.
     */
    static void warmUpInBackground() {
        Thread t = new Thread(() -> {
            List<Item> items = new ArrayList<>();
            List<Edge> edges = new ArrayList<>();
            edges.add(new Edge(End.OWN_IN, -1, 0, End.NODE, 0, 0));
            for (int i = 0; i < 8; i++) {
                items.add(new Item(60 + 10 * i, 30, null, false));
                if (i > 0) {
                    edges.add(new Edge(End.NODE, i - 1, 0, End.NODE, i, 0));
                }
            }
            edges.add(new Edge(End.NODE, 0, 0, End.NODE, 7, 0));
            edges.add(new Edge(End.NODE, 7, 0, End.OWN_OUT, -1, 0));
            try {
                layout(new Level(items, 1, 1, edges, true, false));
            } catch (RuntimeException e) {
                // Only a warm-up: the real layout reports its own failures.
            }
        }, "gradscope-layout-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    static Inner layout(Level level) {
        Inner grid = level.run() ? RunGrid.layout(level) : null;
        if (grid == null) {
            grid = WideLayers.layout(level);
        }
        if (grid != null) {
            return grid;
        }
        register();
        ElkNode root = ElkGraphUtil.createGraph();
        root.setProperty(CoreOptions.ALGORITHM, "org.eclipse.elk.layered");
        root.setProperty(CoreOptions.DIRECTION, Direction.DOWN);
        root.setProperty(CoreOptions.EDGE_ROUTING, EdgeRouting.ORTHOGONAL);
        root.setProperty(LayeredOptions.SPACING_NODE_NODE_BETWEEN_LAYERS, 36.0);
        root.setProperty(CoreOptions.SPACING_NODE_NODE, 24.0);
        root.setProperty(LayeredOptions.SPACING_EDGE_NODE_BETWEEN_LAYERS, 12.0);
        // Keep program order where it costs no crossing: the drawing reads like the program. On a
        // large level it costs most of the time (10,000 nodes: 3.8 s instead of 0.9 s): left out there.
        if (level.items().size() <= LARGE_ORDERED) {
            root.setProperty(LayeredOptions.CONSIDER_MODEL_ORDER_STRATEGY, OrderingStrategy.NODES_AND_EDGES);
        }
        root.setProperty(CoreOptions.PADDING, level.titled() ? new ElkPadding(TITLE, PAD, PAD, PAD) : new ElkPadding(PAD));
        List<ElkNode> items = new ArrayList<>();
        List<ElkPort[]> inPorts = new ArrayList<>();
        List<ElkPort[]> outPorts = new ArrayList<>();
        for (Item it : level.items()) {
            ElkNode n = ElkGraphUtil.createNode(root);
            n.setDimensions(it.w(), it.h());
            if (it.top()) {
                n.setProperty(LayeredOptions.LAYERING_LAYER_CONSTRAINT, LayerConstraint.FIRST_SEPARATE);
            }
            ElkPort[] ins = new ElkPort[0];
            ElkPort[] outs = new ElkPort[0];
            if (it.child() != null) {
                n.setProperty(CoreOptions.PORT_CONSTRAINTS, PortConstraints.FIXED_POS);
                ins = ports(n, it.child().inPortX(), 0, PortSide.NORTH);
                outs = ports(n, it.child().outPortX(), it.h(), PortSide.SOUTH);
            }
            items.add(n);
            inPorts.add(ins);
            outPorts.add(outs);
        }
        // Note [One port per destination]: each value entering the container has a port of its own,
        // which ELK lays out as a node of the first layer. 160 values summed by one item (the wide
        // graph's summing tree, folded) made a row of 160 port nodes, 4,000 px wide, above one box:
        // at Fit, everything shrank to dashes. Values that go to the same places enter through one
        // port node (and leave, from the same places, through one), and ports of a child at one spot
        // are one ELK port: their edges share a route, drawn as one line into the box.
        Map<java.util.Set<ElkConnectableShape>, ElkNode> inByTargets = new HashMap<>();
        ElkNode[] ownIn = new ElkNode[level.inPorts()];
        ElkPort[] ownInPort = new ElkPort[level.inPorts()];
        List<java.util.Set<ElkConnectableShape>> targets = ends(level, true, items, inPorts, outPorts);
        for (int p = 0; p < ownIn.length; p++) {
            ownIn[p] = inByTargets.computeIfAbsent(targets.get(p), t -> {
                ElkNode n = portNode(root, LayerConstraint.FIRST);
                port(n, 1, 2, PortSide.SOUTH);
                return n;
            });
            ownInPort[p] = ownIn[p].getPorts().get(0);
        }
        Map<java.util.Set<ElkConnectableShape>, ElkNode> outBySources = new HashMap<>();
        ElkNode[] ownOut = new ElkNode[level.outPorts()];
        ElkPort[] ownOutPort = new ElkPort[level.outPorts()];
        List<java.util.Set<ElkConnectableShape>> sources = ends(level, false, items, inPorts, outPorts);
        for (int p = 0; p < ownOut.length; p++) {
            ownOut[p] = outBySources.computeIfAbsent(sources.get(p), t -> {
                ElkNode n = portNode(root, LayerConstraint.LAST);
                port(n, 1, 0, PortSide.NORTH);
                return n;
            });
            ownOutPort[p] = ownOut[p].getPorts().get(0);
        }
        List<ElkEdge> edges = new ArrayList<>();
        Map<List<ElkConnectableShape>, ElkEdge> byEnds = new HashMap<>();
        for (Edge e : level.edges()) {
            ElkConnectableShape from = from(e, items, outPorts, ownInPort);
            ElkConnectableShape to = to(e, items, inPorts, ownOutPort);
            edges.add(byEnds.computeIfAbsent(List.of(from, to), k -> ElkGraphUtil.createSimpleEdge(from, to)));
        }
        run(root, level.items().size() + level.edges().size());

        double w = root.getWidth();
        double h = root.getHeight();
        double[][] at = new double[items.size()][];
        for (int i = 0; i < at.length; i++) {
            at[i] = new double[] {items.get(i).getX(), items.get(i).getY()};
        }
        double[] inX = new double[ownIn.length];
        for (int p = 0; p < inX.length; p++) {
            inX[p] = ownIn[p].getX() + 1;
        }
        double[] outX = new double[ownOut.length];
        for (int p = 0; p < outX.length; p++) {
            outX[p] = ownOut[p].getX() + 1;
        }
        double[][][] routes = new double[edges.size()][][];
        for (int i = 0; i < routes.length; i++) {
            List<double[]> pts = new ArrayList<>();
            Edge e = level.edges().get(i);
            if (e.from() == End.OWN_IN) {
                pts.add(new double[] {inX[e.fromPort()], 0}); // from the container's top side
            }
            ElkEdge edge = edges.get(i);
            if (!edge.getSections().isEmpty()) {
                ElkEdgeSection s = edge.getSections().get(0);
                pts.add(new double[] {s.getStartX(), s.getStartY()});
                for (ElkBendPoint b : s.getBendPoints()) {
                    pts.add(new double[] {b.getX(), b.getY()});
                }
                pts.add(new double[] {s.getEndX(), s.getEndY()});
            }
            if (e.to() == End.OWN_OUT) {
                pts.add(new double[] {outX[e.toPort()], h}); // to its bottom side
            }
            routes[i] = pts.toArray(new double[0][]);
        }
        return new Inner(w, h, at, inX, outX, routes);
    }

    /** Above this many items a level is laid out without regard to program order. */
    static final int LARGE_ORDERED = 1000;
    /** Above this many nodes and edges ELK runs on a thread of its own with a large stack. */
    static final int LARGE = 1500;

    /**
     * Runs ELK. Some of its steps recurse once per node along a path (a chain of 10,000 nodes
     * overflows a default stack), so a large level is laid out on a thread with a stack to match.
     */
    private static void run(ElkNode root, int size) {
        if (size < LARGE) {
            new RecursiveGraphLayoutEngine().layout(root, new BasicProgressMonitor());
            return;
        }
        RuntimeException[] failure = new RuntimeException[1];
        Error[] error = new Error[1];
        Thread t = new Thread(null, () -> {
            try {
                new RecursiveGraphLayoutEngine().layout(root, new BasicProgressMonitor());
            } catch (RuntimeException e) {
                failure[0] = e;
            } catch (Error e) {
                error[0] = e;
            }
        }, "gradscope-elk", Math.max(64L << 20, size * 16_384L));
        t.setDaemon(true);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("layout interrupted", e);
        }
        if (failure[0] != null) {
            throw failure[0];
        }
        if (error[0] != null) {
            throw error[0];
        }
    }

    private static ElkConnectableShape from(Edge e, List<ElkNode> items, List<ElkPort[]> outPorts, ElkPort[] ownInPort) {
        return switch (e.from()) {
            case NODE -> items.get(e.fromItem());
            case CHILD_OUT -> outPorts.get(e.fromItem())[e.fromPort()];
            case OWN_IN -> ownInPort[e.fromPort()];
            default -> throw new IllegalArgumentException("an edge cannot start at " + e.from());
        };
    }

    private static ElkConnectableShape to(Edge e, List<ElkNode> items, List<ElkPort[]> inPorts, ElkPort[] ownOutPort) {
        return switch (e.to()) {
            case NODE -> items.get(e.toItem());
            case CHILD_IN -> inPorts.get(e.toItem())[e.toPort()];
            case OWN_OUT -> ownOutPort[e.toPort()];
            default -> throw new IllegalArgumentException("an edge cannot end at " + e.to());
        };
    }

    /**
     * Per own in-port (entering: what it feeds) or out-port (leaving: what feeds it), the items and
     * child ports at the other end of its edges: ports with equal sets go to the same places (Note
     * [One port per destination]).
     */
    private static List<java.util.Set<ElkConnectableShape>> ends(Level level, boolean entering, List<ElkNode> items, List<ElkPort[]> inPorts,
                                                        List<ElkPort[]> outPorts) {
        int n = entering ? level.inPorts() : level.outPorts();
        List<java.util.Set<ElkConnectableShape>> sets = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            sets.add(new java.util.HashSet<>());
        }
        for (Edge e : level.edges()) {
            if (entering && e.from() == End.OWN_IN && e.to() != End.OWN_OUT) {
                sets.get(e.fromPort()).add(to(e, items, inPorts, null));
            } else if (!entering && e.to() == End.OWN_OUT && e.from() != End.OWN_IN) {
                sets.get(e.toPort()).add(from(e, items, outPorts, null));
            }
        }
        return sets;
    }

    /** A box's ports at the given offsets along one side; ports at the same spot are one. */
    private static ElkPort[] ports(ElkNode n, double[] xs, double y, PortSide side) {
        ElkPort[] out = new ElkPort[xs.length];
        Map<Double, ElkPort> at = new HashMap<>();
        for (int p = 0; p < xs.length; p++) {
            out[p] = at.computeIfAbsent(xs[p], x -> port(n, x, y, side));
        }
        return out;
    }

    private static ElkPort port(ElkNode n, double x, double y, PortSide side) {
        ElkPort p = ElkGraphUtil.createPort(n);
        p.setDimensions(0, 0);
        p.setLocation(x, y);
        p.setProperty(CoreOptions.PORT_SIDE, side);
        return p;
    }

    private static ElkNode portNode(ElkNode root, LayerConstraint where) {
        ElkNode n = ElkGraphUtil.createNode(root);
        n.setDimensions(2, 2);
        n.setProperty(LayeredOptions.LAYERING_LAYER_CONSTRAINT, where);
        n.setProperty(CoreOptions.PORT_CONSTRAINTS, PortConstraints.FIXED_POS);
        return n;
    }
}
