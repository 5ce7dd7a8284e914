package io.gradscope.engine.trace;

import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The graph a trace recorded, as the graph view draws it: one vertex per leaf and per forward op
 * (in creation order, so inputs come before their consumers), one edge per input use of a named
 * value (literal constants are folded into their op). A pure function of the trace, built in one
 * pass: O(events + edges), with O(1) lookups by id and of a vertex's input edges.
 *
 * <pre>{@code
 * TraceGraph g = TraceGraph.of(run.trace());
 * int v = g.indexOf(step.node());             // the vertex a BackwardStep is about
 * for (TraceGraph.Edge e : g.inEdges(v)) { ... }
 * }</pre>
 */
public final class TraceGraph {

    /** What a vertex is, for styling. */
    public enum Kind { INPUT, PARAM, LABELS, OP, OBJECTIVE }

    /**
     * One value: {@code index} is its position in {@link #vertices()} (creation order), {@code id}
     * the trace's id for it (its autograd node's id when it has one); {@code name} the statement's
     * name or null; {@code op} the op's label, or the leaf kind ("input", "param", "labels");
     * {@code rule} the VJP as text ("" for a leaf); {@code requiresGrad} whether a gradient flows to it;
     * {@code shown} what its op recorded worth showing beyond the value, by name in the op's order
     * (dropout's mask; empty for most ops and for leaves), a stand-in ({@link NotRetained}) for a
     * tensor the run did not retain.
     */
    public record Vertex(int index, long id, String name, Kind kind, String op, String rule, Tensor value,
                         boolean requiresGrad, Source source, Map<String, Tensor> shown) {
        /** The name if it has one, else the op. */
        public String title() {
            return name != null ? name : op;
        }

        /** Enclosing groups, outermost first. */
        public List<String> groups() {
            return source.groups();
        }

        /** The program line it comes from (0 if none). */
        public int line() {
            return source.line();
        }
    }

    /** The value of vertex {@code from} is input number {@code input} of vertex {@code to}. */
    public record Edge(int from, int to, int input) {
    }

    private final List<Vertex> vertices;
    private final List<Edge> edges;
    private final Map<Long, Integer> indexOfId;
    /** Vertex v's input edges are edges[edgeStart[v], edgeStart[v + 1]): a consumer's edges are added together. */
    private final int[] edgeStart;

    private TraceGraph(List<Vertex> vertices, List<Edge> edges, Map<Long, Integer> indexOfId, int[] edgeStart) {
        this.vertices = vertices;
        this.edges = edges;
        this.indexOfId = indexOfId;
        this.edgeStart = edgeStart;
    }

    /** The graph of a trace's {@code Leaf}, {@code OpForward}, {@code Named} and {@code Objective} events. */
    public static TraceGraph of(Trace trace) {
        List<Vertex> vs = new ArrayList<>();
        List<Edge> es = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        Map<Long, Integer> index = new HashMap<>();
        for (TraceEvent e : trace.events()) {
            if (e instanceof TraceEvent.Leaf l) {
                starts.add(es.size());
                add(vs, index, new Vertex(vs.size(), l.node(), l.name(), Kind.valueOf(l.kind().name()),
                        l.kind().name().toLowerCase(java.util.Locale.ROOT), "", l.value(), l.requiresGrad(), l.source(), Map.of()));
            } else if (e instanceof TraceEvent.OpForward f) {
                starts.add(es.size());
                int to = vs.size();
                for (int i = 0; i < f.inputs().size(); i++) {
                    Integer from = index.get(f.inputs().get(i));
                    if (from != null) {
                        es.add(new Edge(from, to, i));
                    }
                }
                add(vs, index, new Vertex(to, f.node(), null, Kind.OP, f.label(), f.rule(), f.value(), f.requiresGrad(), f.source(),
                        f.shown()));
            } else if (e instanceof TraceEvent.Named n) {
                Integer v = index.get(n.node());
                if (v != null && vs.get(v).name() == null) {
                    Vertex o = vs.get(v);
                    // The first name wins: "y = x" keeps x's vertex named x.
                    vs.set(v, new Vertex(o.index(), o.id(), n.name(), o.kind(), o.op(), o.rule(), o.value(), o.requiresGrad(),
                            o.source(), o.shown()));
                }
            } else if (e instanceof TraceEvent.Objective ob) {
                Integer v = index.get(ob.node());
                if (v != null) {
                    Vertex o = vs.get(v);
                    vs.set(v, new Vertex(o.index(), o.id(), o.name(), Kind.OBJECTIVE, o.op(), o.rule(), o.value(),
                            o.requiresGrad(), o.source(), o.shown()));
                }
            }
        }
        int[] edgeStart = new int[vs.size() + 1];
        for (int i = 0; i < starts.size(); i++) {
            edgeStart[i] = starts.get(i);
        }
        edgeStart[vs.size()] = es.size();
        return new TraceGraph(List.copyOf(vs), List.copyOf(es), index, edgeStart);
    }

    private static void add(List<Vertex> vs, Map<Long, Integer> index, Vertex v) {
        vs.add(v);
        if (v.id() >= 0) {
            index.put(v.id(), v.index());
        }
    }

    /** Every vertex, in creation order ({@code vertices().get(i).index() == i}). */
    public List<Vertex> vertices() {
        return vertices;
    }

    /** Every edge, grouped by consumer in creation order, each consumer's by input number. */
    public List<Edge> edges() {
        return edges;
    }

    /** How many vertices. */
    public int size() {
        return vertices.size();
    }

    /** The vertex at {@code index} (creation order). */
    public Vertex vertex(int index) {
        return vertices.get(index);
    }

    /** The vertex the trace knows by {@code id} (a node id of a {@code BackwardStep}, say), or -1. */
    public int indexOf(long id) {
        return indexOfId.getOrDefault(id, -1);
    }

    /** The edges into a vertex, by input number (inputs that are literal constants have none). */
    public List<Edge> inEdges(int vertex) {
        return edges.subList(edgeStart[vertex], edgeStart[vertex + 1]);
    }

    /** The vertex that is input number {@code input} of {@code vertex}, or -1 (a constant). */
    public int inputOf(int vertex, int input) {
        for (Edge e : inEdges(vertex)) {
            if (e.input() == input) {
                return e.from();
            }
        }
        return -1;
    }

    /** The group names the vertices are in, each once, in the order they first appear. */
    public List<String> groupNames() {
        Set<String> names = new LinkedHashSet<>();
        for (Vertex v : vertices) {
            names.addAll(v.groups());
        }
        return List.copyOf(names);
    }

    @Override
    public String toString() {
        return "TraceGraph(" + vertices.size() + " vertices, " + edges.size() + " edges)";
    }
}
