package io.gradscope.engine.autograd;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.ops.OpObservers;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.StorageRole;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A backward sweep that advances one node at a time. Each {@link #step()} takes the ready node
 * created last, hands its complete upstream gradient to the op's VJP and sends each input its
 * contribution.
 *
 * <p>Note [Deterministic order]: a node is ready once every node that consumes it has sent its
 * contribution (dependency counts). Among ready nodes the one with the highest id (created last)
 * goes first, so the order is a reverse topological order that depends only on the graph, and
 * running twice adds the same numbers in the same order: bit-identical gradients.
 *
 * <p>Note [Fan-out accumulation]: a value used by several consumers receives one contribution
 * from each; they are summed, in the order the consumers step, into its upstream gradient.
 *
 * <pre>{@code
 * BackwardRun run = Backward.start(loss);
 * while (run.hasNext()) {
 *     TraceEvent.BackwardStep step = run.step();
 *     System.out.println(step.node() + " " + step.upstream());
 * }
 * }</pre>
 */
public final class BackwardRun {
    private final boolean createGraph;
    private final StepLifetimes life;
    /** Each visited node's consumers still to send and its upstream gradient so far. */
    private final SweepTable table = new SweepTable(256);
    /** The nodes stepped so far, in order, and the upstream gradient each received. */
    private final Node[] stepped;
    private final Tensor[] finalGradients;
    private final PriorityQueue<Node> ready = new PriorityQueue<>(Comparator.comparingLong(Node::id).reversed());
    private final int total;
    private int done;

    BackwardRun(Tensor objective, boolean createGraph, StepLifetimes life) {
        if (createGraph && life != null) {
            throw new IllegalArgumentException("a sweep that records its gradients' graph keeps every value; it takes no lifetimes");
        }
        this.createGraph = createGraph;
        this.life = life;
        if (objective.rank() != 0) {
            throw new GradscopeException("backward needs a scalar objective, but it has shape " + Shapes.str(objective.shape())
                    + "; reduce it with sum() or mean()");
        }
        if (!objective.requiresGrad()) {
            throw new GradscopeException("the objective does not depend on anything that needs a gradient");
        }
        Node root = Node.of(objective);
        // Count, for every reachable node, the edges from its consumers (iteratively: chains can be long).
        Deque<Node> stack = new ArrayDeque<>();
        stack.push(root);
        table.add(root);
        while (!stack.isEmpty()) {
            OpContext c = stack.pop().context();
            for (int i = 0, k = c == null ? 0 : c.inputCount(); i < k; i++) {
                Tensor in = c.inputAt(i);
                Node m = Node.of(in);
                if (m == null || !in.requiresGrad()) {
                    continue;
                }
                int slot = table.find(m);
                if (slot < 0) {
                    table.setPending(table.add(m), 1);
                    stack.push(m);
                } else {
                    table.setPending(slot, table.pending(slot) + 1);
                }
            }
        }
        total = table.size();
        stepped = new Node[total];
        finalGradients = new Tensor[total];
        if (life != null) {
            life.backwardStarted(table.nodes());
        }
        Tensor seed = Allocations.as(MemoryCategory.GRADIENT, StorageRole.GRADIENT, root.id(), () -> Ops.constant(1, objective));
        if (life != null) {
            life.holdGradient(seed);
        }
        table.setUpstream(table.find(root), seed);
        ready.add(root);
    }

    public boolean hasNext() {
        return !ready.isEmpty();
    }

    /** How many nodes the sweep visits in all. */
    public int totalSteps() {
        return total;
    }

    public int stepsDone() {
        return done;
    }

    /** The node the next {@link #step()} processes, or null when the sweep is finished. */
    public Node next() {
        return ready.peek();
    }

    /** Processes the next node and returns what happened (also published to open recorders). */
    public TraceEvent.BackwardStep step() {
        return advance(true);
    }

    /**
     * Processes the next node; builds its event only when {@code event} is asked for or a recorder
     * is open (a sweep run to the end with nobody recording makes no event per node).
     */
    private TraceEvent.BackwardStep advance(boolean event) {
        Node node = ready.poll();
        if (node == null) {
            throw new IllegalStateException("the backward sweep is finished");
        }
        if (life != null) {
            life.beforeStep(node);
        }
        int at = table.find(node);
        Tensor g = table.upstream(at);
        table.setUpstream(at, null);
        stepped[done] = node;
        finalGradients[done] = g;
        StepObservers.upstream(node.id(), g);
        boolean publish = event || Recorder.active();
        List<TraceEvent.Contribution> sent = publish ? new ArrayList<>() : null;
        if (node.isLeaf()) {
            node.output().setGrad(g);
            if (life != null) {
                life.keepGradient(g);
            }
        } else {
            OpContext ctx = node.context();
            Tensor[] grads = vjp(node, ctx, g);
            for (int i = 0, k = ctx.inputCount(); i < k; i++) {
                Tensor in = ctx.inputAt(i);
                Node target = Node.of(in);
                if (target == null || !in.requiresGrad()) {
                    continue;
                }
                Tensor c = grads[i];
                if (c == null || !c.sameShape(in)) {
                    throw new IllegalStateException(node.opName() + ": VJP for input " + i + " gave "
                            + (c == null ? "nothing" : Shapes.str(c.shape())) + ", expected " + Shapes.str(in.shape()));
                }
                if (publish) {
                    sent.add(new TraceEvent.Contribution(i, target.id(), c));
                }
                accumulate(target, c);
            }
        }
        done++;
        TraceEvent.BackwardStep step = null;
        if (publish) {
            step = new TraceEvent.BackwardStep(node.id(), node.opName(), g, List.copyOf(sent));
            Recorder.emit(step);
        }
        if (life != null) {
            if (!node.isLeaf()) {
                life.dropGradient(g); // Note [Step lifetimes]: sent on, an intermediate gradient goes
            }
            life.afterStep(node);
        }
        return step;
    }

    private Tensor[] vjp(Node node, OpContext ctx, Tensor g) {
        Allocations.Scope scope = Allocations.open(MemoryCategory.GRADIENT);
        Tensor[] grads = null;
        try (var mode = GradMode.set(createGraph, true)) {
            grads = node.op().vjp(ctx, g);
        } finally {
            // A contribution is the gradient of the input it goes to; scratch is the stepping node's.
            scope.closeGradients(grads == null ? List.of() : Arrays.asList(grads), ctx.inputs(), node.id(), !differentiating());
        }
        return grads;
    }

    /**
     * Whether the VJPs build on their intermediate values (a graph of the gradient is recorded, or
     * tangents are carried): then those values must outlive the step, and are not released.
     */
    private boolean differentiating() {
        return createGraph || OpObservers.differentiating();
    }

    // See Note [Fan-out accumulation].
    private void accumulate(Node target, Tensor c) {
        int at = table.find(target);
        Tensor prev = table.upstream(at);
        if (prev == null) {
            table.setUpstream(at, c);
            if (life != null) {
                life.holdGradient(c);
            }
        } else {
            Allocations.Scope scope = Allocations.open(MemoryCategory.GRADIENT);
            Tensor sum = null;
            try (var mode = GradMode.set(createGraph, true)) {
                sum = Ops.add(prev, c);
            } finally {
                scope.close(sum == null ? List.of() : List.of(sum), target.id(), StorageRole.GRADIENT, !differentiating());
            }
            table.setUpstream(at, sum);
            if (life != null) {
                life.holdGradient(sum);
                life.dropGradient(prev);
            }
        }
        int left = table.pending(at) - 1;
        table.setPending(at, left);
        if (left == 0) {
            ready.add(target);
        }
    }

    /** Runs the remaining steps and returns every visited node's upstream gradient. */
    public Gradients finish() {
        while (hasNext()) {
            if (Thread.currentThread().isInterrupted()) {
                throw new java.util.concurrent.CancellationException("backward pass cancelled");
            }
            advance(false);
        }
        return done == total ? new Gradients(stepped, finalGradients)
                : new Gradients(Arrays.copyOf(stepped, done), Arrays.copyOf(finalGradients, done));
    }
}
