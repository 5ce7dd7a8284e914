package io.gradscope.app.viewmodel;

import io.gradscope.app.viewmodel.JacobianViewModel.Output;
import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import java.util.Map;

/**
 * What a recorded run offers the Jacobian view to differentiate: the leaves with a gradient (by
 * name, in the program's order), the vertices with a floating value that takes one (the outputs),
 * and each group's ends (its one output and the first value with a gradient flowing into it) where
 * it has them. Read from the run's graph; no state.
 *
 * @param groupEnds by group name: {output vertex, input vertex}
 */
record JacobianChoices(List<String> leaves, List<Output> outputs, Map<String, int[]> groupEnds) {

    static JacobianChoices of(Sweep s) {
        java.util.Set<String> leafNames = new java.util.LinkedHashSet<>();
        for (Leaf l : s.run().leaves()) {
            if (l.grad()) {
                leafNames.add(l.name());
            }
        }
        for (TraceGraph.Vertex v : s.graph().vertices()) {
            if (v.kind() == TraceGraph.Kind.OP && v.name() != null && v.requiresGrad() && v.value() != null
                    && v.value().dtype().isFloating()) {
                leafNames.add(v.name());
            }
        }
        java.util.List<Output> outs = new java.util.ArrayList<>();
        for (TraceGraph.Vertex v : s.graph().vertices()) {
            if (v.requiresGrad() && v.value() != null && v.value().dtype().isFloating()) {
                String shape = Shapes.str(v.value().shape());
                outs.add(new Output(v.index(), (v.name() != null && v.kind() != TraceGraph.Kind.OP
                        && v.kind() != TraceGraph.Kind.OBJECTIVE ? v.name() : v.name() != null ? v.name() + " = " + v.op()
                        : v.op() + " #" + v.index()) + " " + shape));
            }
        }
        java.util.Set<Integer> outputVertices = new java.util.HashSet<>();
        outs.forEach(o -> outputVertices.add(o.vertex()));
        return new JacobianChoices(List.copyOf(leafNames), List.copyOf(outs), groupEnds(s.graph(), leafNames, outputVertices));
    }

    /** The last named value that is not a scalar computed from {@code from}, else the last value computed from it, else -1. */
    static int lastComputedFrom(TraceGraph g, List<Output> outputs, int from) {
        boolean[] reached = new boolean[g.size()];
        reached[from] = true;
        // Vertices are in the order of the program: one pass over the edges in that order reaches every descendant.
        java.util.List<TraceGraph.Edge> edges = new java.util.ArrayList<>(g.edges());
        edges.sort(java.util.Comparator.comparingInt(TraceGraph.Edge::to));
        for (TraceGraph.Edge e : edges) {
            if (reached[e.from()]) {
                reached[e.to()] = true;
            }
        }
        int any = -1;
        for (int k = outputs.size() - 1; k >= 0; k--) {
            int o = outputs.get(k).vertex();
            if (o == from || !reached[o]) {
                continue;
            }
            TraceGraph.Vertex v = g.vertex(o);
            if (v.kind() == TraceGraph.Kind.OP && v.name() != null && v.value().numel() > 1) {
                return o;
            }
            any = any < 0 ? o : any;
        }
        return any;
    }

    /**
     * Every group's ends (output and input vertex) in one pass over the edges: a group's outputs are the
     * values made in it that are read outside it (or the objective, made in it), its input the first
     * computed value with a gradient made outside it that it reads. Found group by group, each a pass
     * over the whole graph, a random program of 50,000 statements in 2,000 groups spent minutes here
     * when it opened.
     */
    static Map<String, int[]> groupEnds(TraceGraph g, java.util.Set<String> leafNames, java.util.Set<Integer> outputs) {
        Map<String, java.util.TreeSet<Integer>> outs = new java.util.HashMap<>();
        Map<String, Integer> valueIn = new java.util.HashMap<>();
        for (TraceGraph.Vertex v : g.vertices()) {
            if (v.kind() == TraceGraph.Kind.OBJECTIVE) {
                for (String name : v.groups()) {
                    outs.computeIfAbsent(name, x -> new java.util.TreeSet<>()).add(v.index());
                }
            }
        }
        for (TraceGraph.Edge e : g.edges()) {
            TraceGraph.Vertex from = g.vertex(e.from());
            List<String> inFrom = from.groups();
            List<String> inTo = g.vertex(e.to()).groups();
            for (String name : inFrom) {
                if (!inTo.contains(name)) {
                    outs.computeIfAbsent(name, x -> new java.util.TreeSet<>()).add(e.from());
                }
            }
            if (from.kind() == TraceGraph.Kind.OP && from.name() != null && leafNames.contains(from.name())) {
                for (String name : inTo) {
                    if (!inFrom.contains(name)) {
                        valueIn.merge(name, e.from(), Math::min);
                    }
                }
            }
        }
        Map<String, int[]> out = new java.util.HashMap<>();
        for (Map.Entry<String, java.util.TreeSet<Integer>> o : outs.entrySet()) {
            Integer in = valueIn.get(o.getKey());
            if (o.getValue().size() == 1 && in != null && outputs.contains(o.getValue().first())) {
                out.put(o.getKey(), new int[] {o.getValue().first(), in});
            }
        }
        return out;
    }

    /** The leaves with a gradient that {@code vertex} depends on, in the order of the program. */
    static List<String> leavesUpstreamOf(Sweep s, List<String> leaves, int vertex) {
        TraceGraph g = s.graph();
        boolean[] seen = new boolean[g.size()];
        java.util.ArrayDeque<Integer> todo = new java.util.ArrayDeque<>(List.of(vertex));
        seen[vertex] = true;
        while (!todo.isEmpty()) {
            for (TraceGraph.Edge e : g.inEdges(todo.pop())) {
                if (!seen[e.from()]) {
                    seen[e.from()] = true;
                    todo.push(e.from());
                }
            }
        }
        return leaves.stream().filter(l -> {
            int v = s.find(l);
            return v >= 0 && v != vertex && seen[v];
        }).toList();
    }
}
