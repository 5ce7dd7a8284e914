package io.gradscope.engine.program;

import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;

/**
 * Everything a program computed, as the graph view shows it: one vertex per leaf and per op
 * application (constants from literals are folded into their op), with the statement names,
 * groups and the autograd node behind each vertex that has a gradient.
 */
public record ProgramGraph(List<Vertex> vertices, List<Edge> edges) {

    /** What a vertex is, for styling. */
    public enum Kind { INPUT, PARAM, LABELS, OP, OBJECTIVE }

    /**
     * One value: {@code id} is its index in {@link #vertices()}, in creation (forward) order;
     * {@code name} the statement's name or null; {@code op} the op's label ("leaf" kinds: input,
     * param, labels); {@code node} the autograd node, null when no gradient flows through it.
     */
    public record Vertex(int id, String name, Kind kind, String op, String rule, Tensor value, Node node,
                         List<String> groups, int line) {
        /** The name if it has one, else the op. */
        public String title() {
            return name != null ? name : op;
        }
    }

    /** {@code from}'s value is input number {@code input} of {@code to}. */
    public record Edge(int from, int to, int input) {
    }

    /** The vertex whose autograd node has this id, or null. */
    public Vertex byNodeId(long nodeId) {
        for (Vertex v : vertices) {
            if (v.node() != null && v.node().id() == nodeId) {
                return v;
            }
        }
        return null;
    }
}
