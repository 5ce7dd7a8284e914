package io.gradscope.engine.autograd;

import io.gradscope.engine.alloc.RefCounts;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.ops.VjpReads;
import io.gradscope.engine.recompute.RematPlan;
import io.gradscope.engine.recompute.StepProfile;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The lifetimes of one training step's tensors, as a plain training run has them, and the
 * recomputation of its checkpoint segments. The program tells it each forward op and each hold it
 * takes or lets go of; the backward sweep tells it each step. A node holds what its VJP reads (its
 * {@link Op#vjpReads declaration}) until its step is done; a value a {@link RematPlan} drops is not
 * held: the forward pass frees it when done with it, and the first step that reads a value of its
 * segment runs the segment's needed ops again (a {@link TraceEvent.Recompute} each) and binds the
 * recomputed values to the nodes that read them (Note [Recomputed values] in {@link OpContext}).
 *
 * <p>Note [Step lifetimes]: every count is on a storage ({@link RefCounts}): a view and its base are
 * one storage, a gradient sent to two inputs is held twice. Who holds what:
 * <ul>
 *   <li>the program, each value until its last reader (the interpreter's holds);</li>
 *   <li>a recorded node, the inputs, output and saved tensors its VJP reads, until its step, or
 *       until it dies (Note [Dead branches]);</li>
 *   <li>a dropped op, the values it reads from outside its segment, until it has run again or can
 *       no longer be needed (Note [Segment inputs] in {@link Segments});</li>
 *   <li>the sweep, each node's upstream gradient until the node has sent it on (a leaf's is kept);</li>
 *   <li>a recomputation, each recomputed value until the segment's later ops have read it.</li>
 * </ul>
 * {@link #finish()} lets go of whatever is left (a run that stopped early), so a step always ends
 * with only parameters, the leaves' gradients and what is held for inspection.
 */
public final class StepLifetimes {
    private static final int INPUT = 0;
    private static final int OUTPUT = 1;
    private static final int SAVED = 2;

    /**
     * A value a node's VJP reads that its segment recomputes: input number {@code slot}, the output,
     * or the saved tensors (then {@code slot} has a bit set for each one read).
     */
    private record Need(int kind, int slot, int op) {
    }

    /** What a node holds for its step. */
    private static final class NodeNeeds {
        final List<Tensor> held = new ArrayList<>();
        final List<Need> recomputed = new ArrayList<>();
        final List<Tensor> recomputedHeld = new ArrayList<>();
        boolean bound;
    }

    private final RefCounts holds;
    private final RematPlan plan;
    private final List<ForwardOp> forward = new ArrayList<>();
    private final Segments segments;
    private final Map<Tensor, Integer> producer = new IdentityHashMap<>();
    private final Map<Node, NodeNeeds> needs = new IdentityHashMap<>();
    private final NodeLiveness liveness = new NodeLiveness(this::letGo);
    private final Set<Node> stepped = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The nodes whose VJPs read a value of each segment: a recompute visits these, not every node (a 50,000-node chain). */
    private final Map<Integer, List<Node>> readersOf = new HashMap<>();
    private int objective = -1;

    /** Lifetimes counted in {@code holds}, values recomputed as {@code plan} says. */
    public StepLifetimes(RefCounts holds, RematPlan plan) {
        this.holds = holds;
        this.plan = plan;
        this.segments = new Segments(holds, plan, forward);
    }

    /** The counts this step keeps. */
    public RefCounts holds() {
        return holds;
    }

    // ---- the program's holds -----------------------------------------------------------------

    /** The program holds {@code t} once more (a name bound to it, an expression not yet read). */
    public void hold(Tensor t) {
        holds.hold(t);
        liveness.held(t);
    }

    /**
     * The program lets go of {@code t} once. A node whose value the program no longer holds and no
     * live node reads dies (Note [Dead branches]); a dropped value no longer held is one reason
     * fewer to recompute it.
     */
    public void drop(Tensor t) {
        if (liveness.dropped(t)) {
            Integer k = producer.get(t);
            if (k != null && plan.dropped(k)) {
                segments.unneeded(k);
            }
        }
        holds.drop(t);
    }

    /** A node that will never step lets go of what it holds and of its reasons to recompute. */
    private void letGo(Node n) {
        NodeNeeds nn = needs.remove(n);
        if (nn == null) {
            return;
        }
        release(nn);
        if (!nn.bound) {
            for (Need r : nn.recomputed) {
                segments.unneeded(r.op());
            }
        }
    }

    // ---- the forward pass ----------------------------------------------------------------------

    /** The program applied {@code op} to {@code inputs} and got {@code out} (call after each forward op). */
    public void forwardOp(Op op, Tensor[] inputs, Tensor out) {
        ForwardOp f = new ForwardOp();
        f.index = forward.size();
        f.op = op;
        f.inputs = inputs.clone();
        f.out = out;
        f.node = Node.of(out) != null && Node.of(out).context() != null ? Node.of(out) : null;
        f.id = Recorder.active() ? Recorder.idOf(out) : f.node != null ? f.node.id() : -1;
        f.source = Recorder.source();
        int[][] shapes = new int[inputs.length][];
        f.producers = new int[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            f.producers[i] = producer.getOrDefault(inputs[i], -1);
            shapes[i] = inputs[i].shape();
        }
        f.flops = op.flops(shapes, out.shape());
        forward.add(f);
        producer.put(out, f.index);
        int k = f.index;
        boolean dropped = plan.dropped(k);
        if (dropped) {
            segments.recorded(f);
        }
        if (f.node == null) {
            return;
        }
        liveness.recorded(f.node, inputs);
        OpContext ctx = f.node.context();
        boolean[] needsGrad = new boolean[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            needsGrad[i] = ctx.needsGrad(i);
        }
        VjpReads reads = op.vjpReads(needsGrad);
        NodeNeeds nn = new NodeNeeds();
        for (int i = 0; i < inputs.length; i++) {
            if (reads.input(i)) {
                int p = f.producers[i];
                if (p >= 0) {
                    forward.get(p).readByBackward = true;
                }
                need(nn, inputs[i], plan.dropped(p) ? new Need(INPUT, i, p) : null);
            }
        }
        if (reads.output()) {
            f.readByBackward = true;
            need(nn, out, dropped ? new Need(OUTPUT, 0, k) : null);
        }
        List<Tensor> saved = ctx.savedTensors();
        for (int i = 0; i < saved.size(); i++) {
            Storage s = saved.get(i).storage();
            if (s != out.storage() && firstOf(s, saved, i)) {
                f.savedBytes += s.bytes();
            }
        }
        int savedRead = 0; // a bit per saved tensor the VJP reads
        for (int i = 0; i < saved.size() && i < 31; i++) {
            savedRead |= reads.saved(i) ? 1 << i : 0;
        }
        if (savedRead != 0 && dropped) {
            need(nn, null, new Need(SAVED, savedRead, k));
        } else {
            for (int i = 0; i < saved.size(); i++) {
                if (reads.saved(i)) {
                    need(nn, saved.get(i), null);
                }
            }
        }
        needs.put(f.node, nn);
        for (Need r : nn.recomputed) {
            List<Node> readers = readersOf.computeIfAbsent(plan.segmentOf(r.op()), x -> new ArrayList<>());
            if (readers.isEmpty() || readers.get(readers.size() - 1) != f.node) {
                readers.add(f.node);
            }
        }
    }

    /** Whether no tensor before index {@code i} of {@code saved} is of storage {@code s} (a node saves a few). */
    private static boolean firstOf(Storage s, List<Tensor> saved, int i) {
        for (int j = 0; j < i; j++) {
            if (saved.get(j).storage() == s) {
                return false;
            }
        }
        return true;
    }

    private void need(NodeNeeds nn, Tensor t, Need recomputed) {
        if (recomputed != null) {
            nn.recomputed.add(recomputed);
            segments.needed(recomputed.op());
        } else {
            holds.hold(t);
            nn.held.add(t);
        }
    }

    /** The program's objective is {@code t} (the value of its last statement). */
    public void objective(Tensor t) {
        objective = producer.getOrDefault(t, -1);
    }

    // ---- the backward sweep --------------------------------------------------------------------

    /** The sweep starts and will visit {@code visited}: any other node lets go of what it holds. */
    void backwardStarted(Collection<Node> visited) {
        Set<Node> reachable = Collections.newSetFromMap(new IdentityHashMap<>());
        reachable.addAll(visited);
        for (Node n : new ArrayList<>(needs.keySet())) {
            if (!reachable.contains(n)) {
                letGo(n);
            }
        }
        holds.sweep();
    }

    /** Before {@code n}'s step: recomputes the segments whose values its VJP reads. */
    void beforeStep(Node n) {
        NodeNeeds nn = needs.get(n);
        if (nn == null) {
            return;
        }
        for (Need r : nn.recomputed) {
            int seg = plan.segmentOf(r.op());
            if (!segments.done(seg)) {
                recompute(seg);
            }
        }
    }

    /** After {@code n}'s step: it lets go of what its VJP read. */
    void afterStep(Node n) {
        stepped.add(n);
        NodeNeeds nn = needs.remove(n);
        if (nn != null) {
            release(nn);
            if (!nn.recomputed.isEmpty()) {
                n.context().clearRebinds();
            }
        }
        holds.sweep();
    }

    /** The sweep holds a gradient (an upstream gradient, a contribution on its way). */
    void holdGradient(Tensor g) {
        holds.hold(g);
    }

    /** The sweep is done with a gradient. */
    void dropGradient(Tensor g) {
        holds.drop(g);
    }

    /** A leaf's gradient: it outlives the step. */
    void keepGradient(Tensor g) {
        holds.keep(g);
    }

    private void release(NodeNeeds nn) {
        for (Tensor t : nn.held) {
            holds.drop(t);
        }
        for (Tensor t : nn.recomputedHeld) {
            holds.drop(t);
        }
        nn.held.clear();
        nn.recomputedHeld.clear();
    }

    /** Runs a segment's needed ops again (see {@link Segments#recompute}), binding their values to every node still to step that reads them. */
    private void recompute(int seg) {
        Map<Integer, List<Map.Entry<Node, Need>>> wanted = new HashMap<>();
        for (Node n : readersOf.getOrDefault(seg, List.of())) {
            NodeNeeds nn = needs.get(n);
            if (nn == null || stepped.contains(n)) {
                continue;
            }
            for (Need r : nn.recomputed) {
                if (plan.segmentOf(r.op()) == seg) {
                    wanted.computeIfAbsent(r.op(), x -> new ArrayList<>()).add(Map.entry(n, r));
                    nn.bound = true;
                }
            }
        }
        segments.recompute(seg, (c, j) -> {
            for (Map.Entry<Node, Need> w : wanted.getOrDefault(j, List.of())) {
                bind(w.getKey(), w.getValue(), c);
            }
        });
    }

    private void bind(Node m, Need r, OpContext c) {
        NodeNeeds nn = needs.get(m);
        OpContext ctx = m.context();
        List<Tensor> values = r.kind() == SAVED ? c.savedTensors() : List.of(c.output());
        switch (r.kind()) {
            case INPUT -> ctx.rebindInput(r.slot(), c.output());
            case OUTPUT -> ctx.rebindOutput(c.output());
            default -> ctx.rebindSaved(values);
        }
        for (int i = 0; i < values.size(); i++) {
            if (r.kind() != SAVED || (r.slot() & (1 << i)) != 0) {
                holds.hold(values.get(i));
                nn.recomputedHeld.add(values.get(i));
            }
        }
    }

    // ---- the end of the step -------------------------------------------------------------------

    /** Lets go of everything still held for the backward pass (idempotent) and frees what nobody holds. */
    public void finish() {
        for (NodeNeeds nn : needs.values()) {
            release(nn);
        }
        needs.clear();
        segments.finishAll();
        holds.sweep();
    }

    /** How many forward ops were recomputed. */
    public int recomputedOps() {
        return segments.recomputedOps();
    }

    /** The recomputed ops' estimated FLOPs. */
    public long recomputedFlops() {
        return segments.recomputedFlops();
    }

    /** The forward ops as the planner sees them (see {@link StepProfile}). */
    public StepProfile profile() {
        return ForwardOp.profile(forward, objective);
    }
}
