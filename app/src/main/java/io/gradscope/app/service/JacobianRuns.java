package io.gradscope.app.service;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.autograd.GradMode;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.jacobian.Coloring;
import io.gradscope.engine.jacobian.Colorings;
import io.gradscope.engine.jacobian.GraphJacobian;
import io.gradscope.engine.jacobian.Jacobians;
import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.jacobian.VertexOrder;
import io.gradscope.engine.program.Program;
import io.gradscope.engine.program.RunOptions;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Jacobian of one drawn vertex with respect to a leaf, for the app's Jacobian view (no
 * JavaFX; run off the UI thread): the program is evaluated once more with the run's options, its
 * autograd nodes are matched to the trace's vertices by the graph's structure, and the engine finds
 * the pattern, colors it and evaluates the Jacobian compressed. For every vertex between the two it
 * also keeps which elements of it depend on which leaf elements and which output elements depend on
 * it, so a nonzero's paths through the graph can be lit without evaluating anything again.
 */
public final class JacobianRuns {
    /** The most vertices between the two whose element dependencies are kept (else a nonzero lights them all). */
    static final int MAX_PATH_NODES = 200;
    /** The most entries those dependencies may hold in all. */
    static final long MAX_PATH_ENTRIES = 20_000_000L;

    private JacobianRuns() {
    }

    /**
     * What to compute: the Jacobian of vertex {@code of} with respect to leaf {@code wrt}; {@code kind}
     * null colors whichever of columns and rows needs fewer colors (rows on a tie), as the command line does.
     */
    public record Request(int of, String wrt, Sparsity sparsity, Coloring.Kind kind, String order) {
    }

    /**
     * A vertex on the way from the leaf to the output: {@code fromLeaf} (leaf × vertex elements) says
     * which of its elements depend on each leaf element, {@code toOutput} (output × vertex elements)
     * which of its elements each output element depends on; both null when not kept.
     */
    public record Between(int vertex, Pattern fromLeaf, Pattern toOutput) {
    }

    /**
     * A computed Jacobian: its pattern, coloring (with the lower bound and whether it is valid), values,
     * the compressed matrix's pattern (output × colors for a column coloring, colors × input for a row
     * one), the products it took, and the vertices between the leaf and the output with the trace's
     * edges among them.
     */
    public record Result(Request request, int leafVertex, int[] ofShape, int[] wrtShape, Pattern pattern, Coloring coloring,
                         int lowerBound, boolean valid, SparseMatrix values, Pattern compressed, int vjps, int jvps,
                         List<Between> between, List<TraceGraph.Edge> edges) {
        public int rows() {
            return pattern.rows();
        }

        public int cols() {
            return pattern.cols();
        }

        /** VJPs or JVPs: how many products the evaluation took. */
        public int products() {
            return vjps + jvps;
        }
    }

    /** Computes {@code r} for the program of {@code graph} (a refusal is a {@link GradscopeException}). */
    public static Result compute(Program program, RunOptions options, TraceGraph graph, Request r) {
        Program.Evaluation e;
        try (var on = GradMode.enable()) {
            e = program.evaluate(options);
        }
        Map<Node, Integer> vertexOf = match(graph, e);
        Map<Integer, Node> nodeOf = new java.util.HashMap<>();
        vertexOf.forEach((n, v) -> nodeOf.put(v, n));
        Tensor wrt = e.values().get(r.wrt());
        int leafVertex = vertexNamed(graph, r.wrt());
        if (wrt == null || leafVertex < 0) {
            throw new GradscopeException("the run has no leaf named '" + r.wrt() + "'");
        }
        TraceGraph.Vertex ofV = graph.vertex(r.of());
        Tensor of = ofV.name() != null && e.values().containsKey(ofV.name()) ? e.values().get(ofV.name())
                : nodeOf.containsKey(r.of()) ? nodeOf.get(r.of()).output() : null;
        if (of == null) {
            throw new GradscopeException("'" + ofV.title() + "' could not be found again in a second evaluation");
        }
        GraphJacobian j = GraphJacobian.of(of, wrt);
        Pattern p = j.pattern(r.sparsity());
        Coloring c = r.kind() != null ? color(p, r.kind(), r.order()) : cheaper(p, r.order());
        SparseMatrix values = Jacobians.compressed(j, p, c);
        List<Between> between = new ArrayList<>();
        long entries = 0;
        for (Node n : j.nodes()) {
            Integer v = vertexOf.get(n);
            if (v != null && v != leafVertex && v != r.of()) {
                between.add(new Between(v, null, null));
                entries += n.output().numel() * (j.rows() + j.cols());
            }
        }
        if (between.size() <= MAX_PATH_NODES && entries <= MAX_PATH_ENTRIES) {
            for (int k = 0; k < between.size(); k++) {
                Tensor mid = nodeOf.get(between.get(k).vertex()).output();
                Pattern fromLeaf = GraphJacobian.of(mid, wrt).pattern(r.sparsity()).transpose();
                Pattern toOutput = GraphJacobian.of(of, mid).pattern(r.sparsity());
                between.set(k, new Between(between.get(k).vertex(), fromLeaf, toOutput));
            }
        }
        java.util.Set<Integer> members = new java.util.HashSet<>();
        members.add(leafVertex);
        members.add(r.of());
        between.forEach(b -> members.add(b.vertex()));
        List<TraceGraph.Edge> edges = new ArrayList<>();
        if (!j.nodes().isEmpty()) {
            for (TraceGraph.Edge ed : graph.edges()) {
                if (members.contains(ed.from()) && members.contains(ed.to()) && ed.to() != leafVertex) {
                    edges.add(ed);
                }
            }
        }
        return new Result(r, leafVertex, of.shape(), wrt.shape(), p, c, Colorings.lowerBound(p, c.kind()),
                Colorings.isValid(p, c), values, compressed(p, c), j.vjps(), j.jvps(), List.copyOf(between), List.copyOf(edges));
    }

    private static Coloring color(Pattern p, Coloring.Kind kind, String order) {
        return order == null || order.equals("best") ? Colorings.recolor(p, Colorings.best(p, kind), 10)
                : Colorings.color(p, kind, VertexOrder.byFlag(order));
    }

    /** The partition with fewer colors; the one with the higher lower bound is tried only when it could win. */
    private static Coloring cheaper(Pattern p, String order) {
        Coloring.Kind first = p.maxRowCount() < p.maxColumnCount() ? Coloring.Kind.COLUMN : Coloring.Kind.ROW;
        Coloring.Kind other = first == Coloring.Kind.ROW ? Coloring.Kind.COLUMN : Coloring.Kind.ROW;
        Coloring best = color(p, first, order);
        if (Colorings.lowerBound(p, other) < best.count()) {
            try {
                Coloring c = color(p, other, order);
                if (c.count() < best.count() || (c.count() == best.count() && c.kind() == Coloring.Kind.ROW)) {
                    best = c;
                }
            } catch (GradscopeException tooLarge) {
                // Its conflict graph is too large to build: keep the partition found.
            }
        }
        return best;
    }

    /** The vertices on the paths along which input element {@code j} reaches output element {@code i}, the ends included. */
    public static java.util.SortedSet<Integer> path(Result r, int i, int j) {
        java.util.SortedSet<Integer> lit = new java.util.TreeSet<>();
        if (!r.pattern().contains(i, j)) {
            return lit;
        }
        lit.add(r.leafVertex());
        lit.add(r.request().of());
        for (Between b : r.between()) {
            if (b.fromLeaf() == null || meet(b.fromLeaf().row(j), b.toOutput().row(i))) {
                lit.add(b.vertex());
            }
        }
        return lit;
    }

    /** Whether two ascending index lists share an element. */
    private static boolean meet(int[] a, int[] b) {
        int x = 0;
        int y = 0;
        while (x < a.length && y < b.length) {
            if (a[x] == b[y]) {
                return true;
            }
            if (a[x] < b[y]) {
                x++;
            } else {
                y++;
            }
        }
        return false;
    }

    /** The pattern of the compressed matrix: J·S (output × colors) for columns, Sᵀ·J (colors × input) for rows. */
    static Pattern compressed(Pattern p, Coloring c) {
        int[] ri = new int[p.nnz()];
        int[] ci = new int[p.nnz()];
        boolean byColumn = c.kind() != Coloring.Kind.ROW;
        for (int i = 0; i < p.rows(); i++) {
            for (int k = p.rowStart(i); k < p.rowEnd(i); k++) {
                ri[k] = byColumn ? i : c.color(i);
                ci[k] = byColumn ? c.color(p.column(k)) : p.column(k);
            }
        }
        return byColumn ? Pattern.fromCoordinates(p.rows(), c.count(), ri, ci) : Pattern.fromCoordinates(c.count(), p.cols(), ri, ci);
    }

    /**
     * The autograd node of every vertex that has one, found by walking the two graphs together from
     * the named values: input k of a node is the vertex that is input k of its vertex.
     */
    static Map<Node, Integer> match(TraceGraph graph, Program.Evaluation e) {
        Map<Node, Integer> vertexOf = new IdentityHashMap<>();
        Map<Integer, Node> nodeOf = new java.util.HashMap<>();
        Deque<Integer> todo = new ArrayDeque<>();
        for (TraceGraph.Vertex v : graph.vertices()) {
            Tensor t = v.name() == null ? null : e.values().get(v.name());
            if (t != null && t.node() != null && !vertexOf.containsKey(t.node())) {
                vertexOf.put(t.node(), v.index());
                nodeOf.put(v.index(), t.node());
                todo.push(v.index());
            }
        }
        while (!todo.isEmpty()) {
            int v = todo.pop();
            Node n = nodeOf.get(v);
            for (TraceGraph.Edge ed : graph.inEdges(v)) {
                if (ed.input() >= n.inputs().size()) {
                    continue;
                }
                Node m = n.inputs().get(ed.input()).node();
                if (m != null && !nodeOf.containsKey(ed.from()) && !vertexOf.containsKey(m)) {
                    vertexOf.put(m, ed.from());
                    nodeOf.put(ed.from(), m);
                    todo.push(ed.from());
                }
            }
        }
        return vertexOf;
    }

    private static int vertexNamed(TraceGraph graph, String name) {
        for (TraceGraph.Vertex v : graph.vertices()) {
            if (name.equals(v.name())) {
                return v.index();
            }
        }
        return -1;
    }
}
