package io.gradscope.engine.jacobian;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The recorded nodes that lie between a tensor {@code wrt} and a tensor {@code of}: those that
 * depend on {@code wrt} and that {@code of} depends on, in creation order (so inputs come before
 * the nodes that use them). {@code wrt} is treated as independent: the nodes it was computed
 * from are not part of it, so for an intermediate node the Jacobian is the partial derivative
 * through the paths that pass through it, as {@code torch.autograd.grad(of, wrt)} takes it.
 */
final class Subgraph {
    final Tensor of;
    final Tensor wrt;
    final Node wrtNode;
    final Node ofNode;
    /** Ascending by id; empty when {@code of} does not depend on {@code wrt}. */
    final List<Node> nodes;
    final Set<Node> members;
    /** For each member, how many member nodes use it as an input (counting repeats). */
    final Map<Node, Integer> consumers;

    private Subgraph(Tensor of, Tensor wrt, List<Node> nodes) {
        this.of = of;
        this.wrt = wrt;
        this.wrtNode = Node.of(wrt);
        this.ofNode = nodes.isEmpty() ? null : Node.of(of);
        this.nodes = List.copyOf(nodes);
        this.members = new HashSet<>(nodes);
        this.consumers = new HashMap<>();
        for (Node n : nodes) {
            for (Tensor in : n.inputs()) {
                Node m = member(in);
                if (m != null) {
                    consumers.merge(m, 1, Integer::sum);
                }
            }
        }
    }

    /** The node of {@code in} when it is a member and carries a gradient, else null. */
    Node member(Tensor in) {
        Node m = Node.of(in);
        return m != null && in.requiresGrad() && members.contains(m) ? m : null;
    }

    static Subgraph between(Tensor of, Tensor wrt) {
        if (wrt.node() == null || !wrt.requiresGrad()) {
            throw new GradscopeException("the tensor to differentiate with respect to does not need a gradient: "
                    + "make it a param, an input(..., grad=True), or a value computed from one");
        }
        if (!of.dtype().isFloating()) {
            throw new GradscopeException("only a float tensor has a Jacobian, not " + of.dtype());
        }
        Node target = Node.of(wrt);
        Node root = Node.of(of);
        if (root == null || !of.requiresGrad() || root.id() < target.id()) {
            return new Subgraph(of, wrt, List.of());
        }
        // Ancestors of `of` created after `wrt` (nothing older can depend on it), not below `wrt`.
        List<Node> above = new ArrayList<>();
        Set<Node> seen = new HashSet<>();
        Deque<Node> stack = new ArrayDeque<>();
        stack.push(root);
        seen.add(root);
        while (!stack.isEmpty()) {
            Node n = stack.pop();
            above.add(n);
            if (n == target) {
                continue;
            }
            for (Tensor in : n.inputs()) {
                Node m = Node.of(in);
                if (m != null && in.requiresGrad() && m.id() >= target.id() && seen.add(m)) {
                    stack.push(m);
                }
            }
        }
        above.sort(Comparator.comparingLong(Node::id));
        Set<Node> depends = new HashSet<>();
        List<Node> between = new ArrayList<>();
        for (Node n : above) {
            boolean d = n == target;
            for (int i = 0; !d && i < n.inputs().size(); i++) {
                Tensor in = n.inputs().get(i);
                d = in.node() != null && in.requiresGrad() && depends.contains(in.node());
            }
            if (d) {
                depends.add(n);
                between.add(n);
            }
        }
        return new Subgraph(of, wrt, depends.contains(root) ? between : List.of());
    }
}
