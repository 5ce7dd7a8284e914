package io.gradscope.engine.autograd;

import io.gradscope.engine.tensor.Tensor;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The upstream gradient each node received in one backward run (for leaves: their gradient), in
 * the order the sweep stepped. The map by node is made when first asked for: a training loop reads
 * its leaves' gradients from the leaves and never needs it.
 */
public final class Gradients {
    private final Node[] nodes;
    private final Tensor[] grads;
    private Map<Node, Tensor> byNode;

    /** Node {@code nodes[i]} received {@code grads[i]}; the arrays are the caller's no more. */
    Gradients(Node[] nodes, Tensor[] grads) {
        this.nodes = nodes;
        this.grads = grads;
    }

    /** The gradient of the objective with respect to {@code t}, or null if it does not depend on it. */
    public Tensor of(Tensor t) {
        return t.node() == null ? null : byNode().get(t.node());
    }

    /** These gradients without those whose storage was released (a run that kept no values). */
    public Gradients unreleased() {
        int n = 0;
        for (Tensor t : grads) {
            if (!t.storage().isReleased()) {
                n++;
            }
        }
        Node[] keptNodes = new Node[n];
        Tensor[] kept = new Tensor[n];
        for (int i = 0, j = 0; i < grads.length; i++) {
            if (!grads[i].storage().isReleased()) {
                keptNodes[j] = nodes[i];
                kept[j++] = grads[i];
            }
        }
        return new Gradients(keptNodes, kept);
    }

    /** Each node's gradient, in the order the sweep stepped. */
    public synchronized Map<Node, Tensor> byNode() {
        if (byNode == null) {
            Map<Node, Tensor> m = new LinkedHashMap<>(nodes.length * 4 / 3 + 1);
            for (int i = 0; i < nodes.length; i++) {
                m.put(nodes[i], grads[i]);
            }
            byNode = Collections.unmodifiableMap(m);
        }
        return byNode;
    }
}
