package io.gradscope.engine.autograd;

import io.gradscope.engine.tensor.Tensor;
import java.util.Collections;
import java.util.Map;

/** The upstream gradient each node received in one backward run (for leaves: their gradient). */
public final class Gradients {
    private final Map<Node, Tensor> byNode;

    Gradients(Map<Node, Tensor> byNode) {
        this.byNode = Collections.unmodifiableMap(byNode);
    }

    /** The gradient of the objective with respect to {@code t}, or null if it does not depend on it. */
    public Tensor of(Tensor t) {
        return t.node() == null ? null : byNode.get(t.node());
    }

    /** These gradients without those whose storage was released (a run that kept no values). */
    public Gradients unreleased() {
        Map<Node, Tensor> kept = new java.util.LinkedHashMap<>();
        byNode.forEach((n, t) -> {
            if (!t.storage().isReleased()) {
                kept.put(n, t);
            }
        });
        return new Gradients(kept);
    }

    public Map<Node, Tensor> byNode() {
        return byNode;
    }
}
