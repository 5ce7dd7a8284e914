package io.gradscope.engine.autograd;

import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The recorded nodes an objective depends on, in creation (topological) order, with their edges:
 * what the graph view draws and what the backward sweep visits.
 *
 * <pre>{@code
 * Graph g = Graph.of(loss);
 * for (Node n : g.nodes()) { ... }           // inputs before the nodes that use them
 * for (Graph.Edge e : g.edges()) { ... }     // from an input's node to its consumer
 * }</pre>
 */
public record Graph(List<Node> nodes, List<Edge> edges) {

    /** {@code from}'s output is input number {@code input} of {@code to}. */
    public record Edge(Node from, Node to, int input) {
    }

    /** Every node reachable from {@code objective} through inputs that need gradients. */
    public static Graph of(Tensor objective) {
        List<Node> nodes = new ArrayList<>();
        List<Edge> edges = new ArrayList<>();
        if (objective.node() == null) {
            return new Graph(List.of(), List.of());
        }
        Set<Node> seen = new HashSet<>();
        Deque<Node> stack = new ArrayDeque<>();
        stack.push(objective.node());
        seen.add(objective.node());
        while (!stack.isEmpty()) {
            Node n = stack.pop();
            nodes.add(n);
            List<Tensor> inputs = n.inputs();
            for (int i = 0; i < inputs.size(); i++) {
                Node m = inputs.get(i).node();
                if (m == null) {
                    continue;
                }
                edges.add(new Edge(m, n, i));
                if (seen.add(m)) {
                    stack.push(m);
                }
            }
        }
        nodes.sort(Comparator.comparingLong(Node::id));
        edges.sort(Comparator.comparingLong((Edge e) -> e.to().id()).thenComparingInt(Edge::input));
        return new Graph(List.copyOf(nodes), List.copyOf(edges));
    }
}
