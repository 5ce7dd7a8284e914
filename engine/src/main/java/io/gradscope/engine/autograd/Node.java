package io.gradscope.engine.autograd;

import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One vertex of the recorded graph: an op applied to inputs, or a leaf that needs a gradient. Ids
 * grow with creation, so creation order is a topological order (inputs before outputs).
 */
public final class Node {
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final ThreadLocal<Deque<String>> GROUPS = ThreadLocal.withInitial(ArrayDeque::new);

    private final long id = SEQUENCE.incrementAndGet();
    private final Op op;
    private final OpContext context;
    private final Tensor output;
    private final List<String> groups;
    private String label;

    private Node(Op op, OpContext context, Tensor output) {
        this.op = op;
        this.context = context;
        this.output = output;
        Deque<String> open = GROUPS.get();
        if (open.isEmpty()) {
            this.groups = List.of();
        } else {
            java.util.List<String> g = new java.util.ArrayList<>();
            open.descendingIterator().forEachRemaining(g::add);
            this.groups = List.copyOf(g);
        }
    }

    /** The node of a leaf tensor that needs a gradient. */
    public static Node leaf(Tensor t) {
        return new Node(null, null, t);
    }

    /** The node of an op's output. */
    public static Node of(Op op, OpContext context, Tensor output) {
        return new Node(op, context, output);
    }

    /** Runs {@code body} with new nodes inside the named group (groups nest). */
    public static void inGroup(String name, Runnable body) {
        GROUPS.get().push(name);
        try {
            body.run();
        } finally {
            GROUPS.get().pop();
        }
    }

    /** Enters a group for nodes created from now on this thread; pair with {@link #popGroup()}. */
    public static void pushGroup(String name) {
        GROUPS.get().push(name);
    }

    public static void popGroup() {
        GROUPS.get().pop();
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

    /** Enclosing groups, outermost first. */
    public List<String> groups() {
        return groups;
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

    @Override
    public String toString() {
        return "Node#" + id + "(" + opName() + (label != null ? " " + label : "") + ")";
    }
}
