package io.gradscope.engine.autograd;

import io.gradscope.engine.memory.Flops;
import io.gradscope.engine.memory.Holds;
import io.gradscope.engine.memory.RematPlan;
import io.gradscope.engine.memory.StepProfile;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.ops.VjpReads;
import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.Source;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The lifetimes of one training step's tensors, as a plain training run has them, and the
 * recomputation of its checkpoint segments. The program tells it each forward op; the backward
 * sweep tells it each step. A node holds what its VJP reads (its {@link Op#vjpReads declaration})
 * until its step is done; a value a {@link RematPlan} drops is not held: the forward pass frees it
 * when done with it, and the first step that needs a value of its segment runs the segment's ops
 * again (a {@link TraceEvent.Recompute} each) and binds the recomputed values to the nodes that read
 * them (Note [Recomputed values] in {@link OpContext}).
 *
 * <p>Note [Step lifetimes]: every count is on a storage ({@link Holds}): a view and its base are
 * one storage, a gradient sent to two inputs is held twice. Who holds what:
 * <ul>
 *   <li>the program, each value until its last reader (the interpreter's holds);</li>
 *   <li>a recorded node, the inputs, output and saved tensors its VJP reads, until its step;</li>
 *   <li>a segment, the values it reads from outside, until it has been recomputed;</li>
 *   <li>the sweep, each node's upstream gradient until the node has sent it on (a leaf's is kept);</li>
 *   <li>a recomputation, each recomputed value until the segment's later ops have read it.</li>
 * </ul>
 * Nodes the sweep never reaches let go of theirs when it starts; {@link #finish()} lets go of
 * whatever is left (a run that stopped early), so a step always ends with only parameters, the
 * leaves' gradients and what is held for inspection.
 */
public final class StepLifetimes {
    private static final int INPUT = 0;
    private static final int OUTPUT = 1;
    private static final int SAVED = 2;

    /** One forward op as it ran. */
    private static final class Fwd {
        int index;
        long id;
        Op op;
        Tensor[] inputs;
        int[] producers;
        Tensor out;
        Node node;
        Source source;
        long flops;
        long savedBytes;
        boolean readByBackward;
    }

    /** A value a node's VJP reads that its segment recomputes. */
    private record Need(int kind, int slot, int op) {
    }

    /** What a node holds for its step. */
    private static final class NodeNeeds {
        final List<Tensor> held = new ArrayList<>();
        final List<Need> recomputed = new ArrayList<>();
        final List<Tensor> recomputedHeld = new ArrayList<>();
    }

    private static final class Segment {
        final int id;
        final List<Integer> ops = new ArrayList<>();
        final List<Tensor> inputs = new ArrayList<>();
        final Set<Node> needers = new LinkedHashSet<>();
        boolean done;

        Segment(int id) {
            this.id = id;
        }
    }

    private final Holds holds;
    private final RematPlan plan;
    private final List<Fwd> forward = new ArrayList<>();
    private final Map<Tensor, Integer> producer = new IdentityHashMap<>();
    private final Map<Node, NodeNeeds> needs = new IdentityHashMap<>();
    private final Map<Integer, Segment> segments = new TreeMap<>();
    private Set<Node> reachable;
    private final Set<Node> stepped = Collections.newSetFromMap(new IdentityHashMap<>());
    private int objective = -1;
    private long recomputedFlops;
    private int recomputedOps;

    /** Lifetimes counted in {@code holds}, values recomputed as {@code plan} says. */
    public StepLifetimes(Holds holds, RematPlan plan) {
        this.holds = holds;
        this.plan = plan;
    }

    /** The counts this step keeps. */
    public Holds holds() {
        return holds;
    }

    // ---- the forward pass ----------------------------------------------------------------------

    /** The program applied {@code op} to {@code inputs} and got {@code out} (call after each forward op). */
    public void forwardOp(Op op, Tensor[] inputs, Tensor out) {
        Fwd f = new Fwd();
        f.index = forward.size();
        f.op = op;
        f.inputs = inputs.clone();
        f.out = out;
        f.node = out.node() != null && out.node().context() != null ? out.node() : null;
        f.id = Recorder.active() ? Recorder.idOf(out) : f.node != null ? f.node.id() : -1;
        f.source = Recorder.source();
        List<int[]> shapes = new ArrayList<>(inputs.length);
        f.producers = new int[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            f.producers[i] = producer.getOrDefault(inputs[i], -1);
            shapes.add(inputs[i].shape());
        }
        f.flops = Flops.of(op.name(), shapes, out.shape());
        forward.add(f);
        producer.put(out, f.index);
        int k = f.index;
        boolean dropped = plan.dropped(k);
        if (dropped) {
            Segment seg = segments.computeIfAbsent(plan.segmentOf(k), Segment::new);
            seg.ops.add(k);
            for (int i = 0; i < inputs.length; i++) {
                if (!plan.dropped(f.producers[i])) {
                    holds.hold(inputs[i]);
                    seg.inputs.add(inputs[i]);
                }
            }
        }
        if (f.node == null) {
            return;
        }
        OpContext ctx = f.node.context();
        boolean[] needsGrad = new boolean[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            needsGrad[i] = ctx.needsGrad(i);
        }
        VjpReads reads = op.vjpReads(needsGrad);
        NodeNeeds nn = new NodeNeeds();
        for (int i = 0; i < inputs.length; i++) {
            if (!reads.input(i)) {
                continue;
            }
            int p = f.producers[i];
            if (p >= 0) {
                forward.get(p).readByBackward = true;
            }
            if (plan.dropped(p)) {
                nn.recomputed.add(new Need(INPUT, i, p));
                segments.get(plan.segmentOf(p)).needers.add(f.node);
            } else {
                holds.hold(inputs[i]);
                nn.held.add(inputs[i]);
            }
        }
        if (reads.output()) {
            f.readByBackward = true;
            if (dropped) {
                nn.recomputed.add(new Need(OUTPUT, 0, k));
                segments.get(plan.segmentOf(k)).needers.add(f.node);
            } else {
                holds.hold(out);
                nn.held.add(out);
            }
        }
        List<Tensor> saved = ctx.savedTensors();
        Set<Storage> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Tensor t : saved) {
            if (seen.add(t.storage()) && t.storage() != out.storage()) {
                f.savedBytes += t.storage().bytes();
            }
        }
        if (!saved.isEmpty()) {
            if (dropped) {
                nn.recomputed.add(new Need(SAVED, 0, k));
                segments.get(plan.segmentOf(k)).needers.add(f.node);
            } else {
                for (Tensor t : saved) {
                    holds.hold(t);
                    nn.held.add(t);
                }
            }
        }
        needs.put(f.node, nn);
    }

    /** The program's objective is the value of the last forward op (or of none). */
    public void objective(Tensor t) {
        objective = producer.getOrDefault(t, -1);
    }

    // ---- the backward sweep --------------------------------------------------------------------

    /** The sweep starts and will visit {@code visited}: nodes it never reaches let go of what they hold. */
    void backwardStarted(Collection<Node> visited) {
        reachable = Collections.newSetFromMap(new IdentityHashMap<>());
        reachable.addAll(visited);
        for (var it = needs.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!reachable.contains(e.getKey())) {
                release(e.getValue());
                it.remove();
            }
        }
        for (Segment seg : segments.values()) {
            seg.needers.retainAll(reachable);
            if (seg.needers.isEmpty()) {
                finishSegment(seg);
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
            Segment seg = segments.get(plan.segmentOf(r.op()));
            if (!seg.done) {
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

    private void finishSegment(Segment seg) {
        for (Tensor t : seg.inputs) {
            holds.drop(t);
        }
        seg.inputs.clear();
        seg.done = true;
    }

    /** Runs a segment's ops again, binding their values to every node still to step that reads them. */
    private void recompute(Segment seg) {
        Map<Integer, List<Map.Entry<Node, Need>>> wanted = new HashMap<>();
        for (Node m : seg.needers) {
            NodeNeeds nn = needs.get(m);
            if (nn == null || stepped.contains(m)) {
                continue;
            }
            for (Need r : nn.recomputed) {
                if (plan.segmentOf(r.op()) == seg.id) {
                    wanted.computeIfAbsent(r.op(), x -> new ArrayList<>()).add(Map.entry(m, r));
                }
            }
        }
        Map<Integer, Integer> usesLeft = new HashMap<>();
        for (int j : seg.ops) {
            for (int p : forward.get(j).producers) {
                if (plan.segmentOf(p) == seg.id) {
                    usesLeft.merge(p, 1, Integer::sum);
                }
            }
        }
        Map<Integer, OpContext> redone = new HashMap<>();
        for (int j : seg.ops) {
            Fwd f = forward.get(j);
            Tensor[] in = new Tensor[f.inputs.length];
            for (int i = 0; i < in.length; i++) {
                int p = f.producers[i];
                in[i] = plan.segmentOf(p) == seg.id ? redone.get(p).output() : f.inputs[i];
            }
            OpContext c = Ops.rerun(f.op, f.id, in);
            recomputedOps++;
            recomputedFlops += f.flops;
            Recorder.emit(new TraceEvent.Recompute(f.id, f.op.name(), f.op.label(), seg.id, f.flops, c.output(), f.source));
            redone.put(j, c);
            for (Map.Entry<Node, Need> w : wanted.getOrDefault(j, List.of())) {
                bind(w.getKey(), w.getValue(), c);
            }
            if (usesLeft.getOrDefault(j, 0) > 0) {
                holds.hold(c.output());
            }
            for (int p : f.producers) {
                if (plan.segmentOf(p) == seg.id && usesLeft.merge(p, -1, Integer::sum) == 0) {
                    holds.drop(redone.get(p).output());
                }
            }
            holds.sweep();
        }
        finishSegment(seg);
        holds.sweep();
    }

    private void bind(Node m, Need r, OpContext c) {
        NodeNeeds nn = needs.get(m);
        OpContext ctx = m.context();
        switch (r.kind()) {
            case INPUT -> {
                ctx.rebindInput(r.slot(), c.output());
                holds.hold(c.output());
                nn.recomputedHeld.add(c.output());
            }
            case OUTPUT -> {
                ctx.rebindOutput(c.output());
                holds.hold(c.output());
                nn.recomputedHeld.add(c.output());
            }
            default -> {
                List<Tensor> saved = c.savedTensors();
                ctx.rebindSaved(saved);
                for (Tensor t : saved) {
                    holds.hold(t);
                    nn.recomputedHeld.add(t);
                }
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
        for (Segment seg : segments.values()) {
            if (!seg.done) {
                finishSegment(seg);
            }
        }
        holds.sweep();
    }

    /** How many forward ops were recomputed, and their estimated FLOPs. */
    public int recomputedOps() {
        return recomputedOps;
    }

    public long recomputedFlops() {
        return recomputedFlops;
    }

    /** The forward ops as the planner sees them (see {@link StepProfile}). */
    public StepProfile profile() {
        List<StepProfile.Op> ops = new ArrayList<>(forward.size());
        for (Fwd f : forward) {
            boolean view = false;
            for (Tensor t : f.inputs) {
                view |= t.storage() == f.out.storage();
            }
            ops.add(new StepProfile.Op(f.index, f.id, f.op.name(), f.op.label(), f.producers.clone(),
                    view ? 0 : f.out.storage().bytes(), f.savedBytes, f.readByBackward, f.node != null, f.flops,
                    f.source.segment(), f.source.line()));
        }
        return new StepProfile(List.copyOf(ops), objective);
    }
}
