package io.gradscope.engine.autograd;

import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.ops.OpObserver;
import io.gradscope.engine.ops.OpObservers;
import io.gradscope.engine.tensor.GradNode;
import io.gradscope.engine.tensor.LeafNodes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.ValueIds;
import java.util.List;

/**
 * One vertex of the recorded graph: an op applied to inputs, or a leaf that needs a gradient. Ids
 * come from {@link ValueIds} and grow with creation, so creation order is a topological order
 * (inputs before outputs).
 */
public final class Node implements GradNode {
    static {
        // Note [Op observers]: no tensor needs a gradient before this class starts (a leaf's node is made here).
        OpObservers.install(OpObserver.AUTOGRAD, Node::record);
        LeafNodes.register(Node::leaf);
    }

    private final long id = ValueIds.next();
    private final Op op;
    private final OpContext context;
    private final Tensor output;
    private String label;

    private Node(Op op, OpContext context, Tensor output) {
        this.op = op;
        this.context = context;
        this.output = output;
    }

    /** The node of a leaf tensor that needs a gradient. */
    public static Node leaf(Tensor t) {
        return new Node(null, null, t);
    }

    /**
     * Autograd's {@link OpObserver}: gives {@code out} its node when recording is on and an input
     * needs a gradient.
     */
    private static void record(Op op, OpContext ctx, Tensor out, int mode) {
        if ((mode & GradMode.ENABLED) == 0) {
            return;
        }
        for (int i = 0, n = ctx.inputCount(); i < n; i++) {
            if (ctx.inputAt(i).requiresGrad()) {
                out.attach(new Node(op, ctx, out));
                return;
            }
        }
    }

    /** The node that produced {@code t} (or its leaf node); null for constants. */
    public static Node of(Tensor t) {
        return (Node) t.node();
    }

    /** The node of an op's output. */
    public static Node of(Op op, OpContext context, Tensor output) {
        return new Node(op, context, output);
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public boolean isLeaf() {
        return op == null;
    }

    /** The op, or null for a leaf. */
    public Op op() {
        return op;
    }

    public OpContext context() {
        return context;
    }

    public Tensor output() {
        return output;
    }

    /** The op's inputs (empty for a leaf). */
    public List<Tensor> inputs() {
        return context == null ? List.of() : context.inputs();
    }

    /** The user's name for this value (a program's statement name), or null. */
    public String label() {
        return label;
    }

    public void setLabel(String label) {
        this.label = label;
    }

    public String opName() {
        return op == null ? "leaf" : op.label();
    }

    /**
     * From the id, which no other node has (equality stays identity): an identity hash costs the JVM
     * a write into the object's header the first time, for every node a sweep's maps hold.
     */
    @Override
    public int hashCode() {
        return Long.hashCode(id * 0x9E3779B97F4A7C15L);
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public String toString() {
        return "Node#" + id + "(" + opName() + (label != null ? " " + label : "") + ")";
    }
}
