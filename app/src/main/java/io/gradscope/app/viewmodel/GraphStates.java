package io.gradscope.app.viewmodel;

import io.gradscope.app.layout.Hierarchy;
import io.gradscope.engine.trace.TraceGraph;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How every drawn node and edge looks at the cursor, kept up to date step by step: moving the
 * cursor by one step changes at most two vertices, and with them only their input edges, so a
 * step costs O(1) (times the ops' arity) however large the graph. A drawn node is a vertex or a
 * collapsed group; a group shows its most telling member state (current, then pending, then visited).
 */
public final class GraphStates {
    /** How an edge is drawn: lit (the current step sends or reads along it), dim (its consumer has not run) or plain. */
    public enum EdgeLook { ACTIVE, PENDING, PLAIN }

    /**
     * The drawn nodes (by key) and edges whose look changed. An event, not a value: two changes
     * with the same members are still two changes (a property holding them fires for each).
     */
    public static final class Change {
        private final Set<String> keys;
        private final Set<TraceGraph.Edge> edges;

        public Change(Set<String> keys, Set<TraceGraph.Edge> edges) {
            this.keys = Set.copyOf(keys);
            this.edges = Set.copyOf(edges);
        }

        public Set<String> keys() {
            return keys;
        }

        public Set<TraceGraph.Edge> edges() {
            return edges;
        }

        public boolean isEmpty() {
            return keys.isEmpty() && edges.isEmpty();
        }
    }

    private final Sweep sweep;
    private final Sweep.Mode mode;
    private final String[] keyOfVertex;
    /** Per drawn node, how many of its vertices are in each state (indexed by ordinal). */
    private final Map<String, int[]> counts = new HashMap<>();
    private final Set<TraceGraph.Edge> active = new HashSet<>();
    private int cursor;
    private String selectedKey;

    /** The looks at {@code cursor}, for the drawn nodes of a layout with {@code collapsed} groups: O(vertices + edges). */
    public GraphStates(Sweep sweep, Sweep.Mode mode, Set<String> collapsed, int cursor) {
        this(sweep, mode, Hierarchy.of(sweep.graph()), collapsed, cursor);
    }

    /** As above, with the graph's containers already known. */
    public GraphStates(Sweep sweep, Sweep.Mode mode, Hierarchy hierarchy, Set<String> collapsed, int cursor) {
        this.sweep = sweep;
        this.mode = mode;
        this.cursor = cursor;
        List<TraceGraph.Vertex> vs = sweep.graph().vertices();
        keyOfVertex = new String[vs.size()];
        for (TraceGraph.Vertex v : vs) {
            String key = hierarchy.keyOf(v.index(), collapsed);
            keyOfVertex[v.index()] = key;
            counts.computeIfAbsent(key, k -> new int[Sweep.State.values().length])[sweep.state(mode, cursor, v.index()).ordinal()]++;
        }
        active.addAll(sweep.activeEdges(mode, cursor));
    }

    public Sweep.Mode mode() {
        return mode;
    }

    /** The drawn node a vertex is part of ("v12", or "g:path" inside a collapsed group). */
    public String keyOf(int vertex) {
        return vertex < 0 || vertex >= keyOfVertex.length ? null : keyOfVertex[vertex];
    }

    /** The state a drawn node shows. */
    public Sweep.State state(String key) {
        int[] c = counts.get(key);
        if (c == null) {
            return Sweep.State.OUTSIDE;
        }
        for (Sweep.State s : new Sweep.State[] {Sweep.State.CURRENT, Sweep.State.PENDING, Sweep.State.VISITED}) {
            if (c[s.ordinal()] > 0) {
                return s;
            }
        }
        return Sweep.State.OUTSIDE;
    }

    public EdgeLook look(TraceGraph.Edge e) {
        if (active.contains(e)) {
            return EdgeLook.ACTIVE;
        }
        // An edge is dim until its consumer has run (forward) or sent its gradient (backward).
        return sweep.state(mode, cursor, e.to()) == Sweep.State.PENDING ? EdgeLook.PENDING : EdgeLook.PLAIN;
    }

    public String selectedKey() {
        return selectedKey;
    }

    /** Every drawn node and edge (to draw a new layout). */
    public Change all() {
        return new Change(counts.keySet(), new HashSet<>(sweep.graph().edges()));
    }

    /**
     * Moves to {@code to} and says what changed: the vertices of the steps between the old and the
     * new cursor, and the input edges of those vertices. One step: two vertices.
     */
    public Change moveTo(int to) {
        Set<String> keys = new LinkedHashSet<>();
        Set<TraceGraph.Edge> edges = new LinkedHashSet<>(active);
        int from = cursor;
        int lo = Math.max(0, Math.min(from, to));
        int hi = Math.min(sweep.steps(mode) - 1, Math.max(from, to));
        // A recomputed vertex has two backward steps (its recompute, its own): count it once.
        Set<Integer> seen = new HashSet<>();
        for (int step = lo; step <= hi; step++) {
            int v = sweep.vertexAt(mode, step);
            if (v < 0 || !seen.add(v)) {
                continue;
            }
            Sweep.State before = sweep.state(mode, from, v);
            Sweep.State after = sweep.state(mode, to, v);
            if (before != after) {
                int[] c = counts.get(keyOfVertex[v]);
                c[before.ordinal()]--;
                c[after.ordinal()]++;
                keys.add(keyOfVertex[v]);
                edges.addAll(sweep.graph().inEdges(v));
            }
        }
        cursor = to;
        active.clear();
        active.addAll(sweep.activeEdges(mode, to));
        edges.addAll(active);
        return new Change(keys, edges);
    }

    /** Moves to {@code cursor} and selects the drawn node of {@code selected} (-1: none); says what changed. */
    public Change update(int to, int selected) {
        Change moved = moveTo(to);
        String key = keyOf(selected);
        if (java.util.Objects.equals(key, selectedKey)) {
            return moved;
        }
        Set<String> keys = new LinkedHashSet<>(moved.keys());
        if (selectedKey != null) {
            keys.add(selectedKey);
        }
        if (key != null) {
            keys.add(key);
        }
        selectedKey = key;
        return new Change(keys, moved.edges());
    }
}
