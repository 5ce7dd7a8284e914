package io.gradscope.engine.autograd;

import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Which recorded nodes of a step can still be stepped by the backward sweep.
 *
 * <p>Note [Dead branches]: PyTorch frees a branch of the graph that does not lead to the loss as
 * soon as nothing refers to its output (the Python value goes, its grad_fn goes, and with it the
 * tensors it saved). Here a node lives while the program holds its value or a live node reads it;
 * the objective is held to the end, so every node the sweep will visit stays alive. A node that
 * dies is handed to {@code died}, which lets go of what it held.
 */
final class NodeLiveness {
    /** How many times the program holds each value (by tensor). */
    private final Map<Tensor, Integer> programHolds = new IdentityHashMap<>();
    /** For each live recorded node, how many live nodes read its value. */
    private final Map<Node, Integer> consumers = new IdentityHashMap<>();
    private final Consumer<Node> died;

    NodeLiveness(Consumer<Node> died) {
        this.died = died;
    }

    /** A new recorded node: it reads its inputs' nodes. */
    void recorded(Node n, Tensor[] inputs) {
        consumers.put(n, 0);
        for (Tensor in : inputs) {
            if (in.node() != null && consumers.containsKey(in.node())) {
                consumers.merge(Node.of(in), 1, Integer::sum);
            }
        }
    }

    /** The program holds {@code t} once more. */
    void held(Tensor t) {
        programHolds.merge(t, 1, Integer::sum);
    }

    /** The program lets go of {@code t} once; true when it no longer holds it at all. */
    boolean dropped(Tensor t) {
        Integer left = programHolds.merge(t, -1, Integer::sum);
        if (left == null || left > 0) {
            return false;
        }
        programHolds.remove(t);
        Node n = Node.of(t);
        if (n != null && consumers.containsKey(n)) {
            dieIfUnused(n);
        }
        return true;
    }

    private void dieIfUnused(Node first) {
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(first);
        while (!todo.isEmpty()) {
            Node n = todo.pop();
            Integer c = consumers.get(n);
            if (c == null || c > 0 || programHolds.containsKey(n.output())) {
                continue;
            }
            consumers.remove(n);
            died.accept(n);
            for (Tensor in : n.inputs()) {
                Node m = Node.of(in);
                if (m != null && consumers.containsKey(m)) {
                    consumers.merge(m, -1, Integer::sum);
                    todo.push(m);
                }
            }
        }
    }
}
