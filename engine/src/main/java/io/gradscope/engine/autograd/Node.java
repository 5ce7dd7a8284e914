package io.gradscope.engine.autograd;

import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One vertex of the recorded graph: an op applied to inputs, or a leaf that needs a gradient. Ids
 * grow with creation, so creation order is a topological order (inputs before outputs).
 */
public final class Node {
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final long id = SEQUENCE.incrementAndGet();
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

    /** The node of an op's output. */
    public static Node of(Op op, OpContext context, Tensor output) {
        return new Node(op, context, output);
    }

    /**
     * Takes the next id of the nodes' sequence without making a node: the trace names values that
     * have no node with it, so one id never means two values.
     */
    public static long reserveId() {
        return SEQUENCE.incrementAndGet();
    }

    public long id() {
        return id;
    }

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
