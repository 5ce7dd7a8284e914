package io.gradscope.engine.autograd;

import io.gradscope.engine.alloc.RefCounts;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.recompute.RematPlan;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ObjIntConsumer;

/**
 * The checkpoint segments of one step: which of their dropped ops may still have to run again, and
 * the values each reads from outside its segment, held until then.
 *
 * <p>Note [Segment inputs]: a dropped op is needed while the program holds its value (a later op
 * may read it, and its node need it), while a live node's VJP reads its value or saved tensors, or
 * while a needed op of its segment reads its value. When nothing needs it any more, the values it
 * reads from outside the segment are let go of at once, so a segment keeps an input only as long
 * as some recomputation may still read it; a recomputation runs only the needed ops, and lets go
 * of each op's outside inputs as soon as that op has run again.
 */
final class Segments {
    private static final class Dropped {
        final int segment;
        int need;
        List<Tensor> outside = new ArrayList<>(2);
        boolean done;

        Dropped(int segment) {
            this.segment = segment;
        }
    }

    private final RefCounts holds;
    private final RematPlan plan;
    private final List<ForwardOp> forward;
    private final Map<Integer, Dropped> dropped = new HashMap<>();
    private final Map<Integer, List<Integer>> opsOf = new HashMap<>();
    private final Map<Integer, Boolean> done = new HashMap<>();
    private int recomputedOps;
    private long recomputedFlops;

    Segments(RefCounts holds, RematPlan plan, List<ForwardOp> forward) {
        this.holds = holds;
        this.plan = plan;
        this.forward = forward;
    }

    /** A dropped op ran in the forward pass: the program holds its value; it holds what it reads from outside. */
    void recorded(ForwardOp f) {
        int seg = plan.segmentOf(f.index);
        Dropped d = new Dropped(seg);
        d.need = 1;
        dropped.put(f.index, d);
        opsOf.computeIfAbsent(seg, s -> new ArrayList<>()).add(f.index);
        for (int i = 0; i < f.inputs.length; i++) {
            int p = f.producers[i];
            if (plan.segmentOf(p) == seg) {
                dropped.get(p).need++;
            } else {
                holds.hold(f.inputs[i]);
                d.outside.add(f.inputs[i]);
            }
        }
    }

    /** A node's VJP will read op {@code k}'s value or saved tensors. */
    void needed(int k) {
        dropped.get(k).need++;
    }

    /** One reason fewer to run op {@code k} again (a node that read it died, the program let go of its value). */
    void unneeded(int k) {
        ArrayDeque<Integer> todo = new ArrayDeque<>();
        todo.push(k);
        while (!todo.isEmpty()) {
            int j = todo.pop();
            Dropped d = dropped.get(j);
            if (d == null || d.done || --d.need > 0) {
                continue;
            }
            d.done = true;
            letGo(d);
            ForwardOp f = forward.get(j);
            for (int p : f.producers) {
                if (plan.segmentOf(p) == d.segment) {
                    todo.push(p);
                }
            }
        }
    }

    private void letGo(Dropped d) {
        for (Tensor t : d.outside) {
            holds.drop(t);
        }
        d.outside = List.of();
    }

    /** Whether segment {@code seg} has been recomputed (or can no longer be needed). */
    boolean done(int seg) {
        return done.getOrDefault(seg, false);
    }

    /** The ops of segment {@code seg} still needed, in the order they ran. */
    List<Integer> pending(int seg) {
        List<Integer> out = new ArrayList<>();
        for (int k : opsOf.getOrDefault(seg, List.of())) {
            if (!dropped.get(k).done) {
                out.add(k);
            }
        }
        return out;
    }

    /** Op {@code k} has run again: it lets go of what it read from outside. */
    private void rerun(int k) {
        Dropped d = dropped.get(k);
        d.done = true;
        letGo(d);
    }

    /**
     * Runs segment {@code seg}'s needed ops again, in order, each on the recomputed values of the
     * segment's earlier ops and the kept values it reads from outside (a {@link TraceEvent.Recompute}
     * each). After each op {@code ran} is told its context and number, to bind what nodes read; a
     * recomputed value is held until the segment's later ops have read it.
     */
    void recompute(int seg, ObjIntConsumer<OpContext> ran) {
        List<Integer> ops = pending(seg);
        Set<Integer> pendingOps = new HashSet<>(ops);
        Map<Integer, Integer> usesLeft = new HashMap<>();
        for (int j : ops) {
            for (int p : forward.get(j).producers) {
                if (pendingOps.contains(p)) {
                    usesLeft.merge(p, 1, Integer::sum);
                }
            }
        }
        Map<Integer, OpContext> redone = new HashMap<>();
        for (int j : ops) {
            ForwardOp f = forward.get(j);
            Tensor[] in = new Tensor[f.inputs.length];
            for (int i = 0; i < in.length; i++) {
                int p = f.producers[i];
                in[i] = pendingOps.contains(p) ? redone.get(p).output() : f.inputs[i];
            }
            OpContext c = Ops.rerun(f.op, f.id, in);
            recomputedOps++;
            recomputedFlops += f.flops;
            Recorder.emit(new TraceEvent.Recompute(f.id, f.op.name(), f.op.label(), seg, f.flops, c.output(), f.source));
            redone.put(j, c);
            ran.accept(c, j);
            if (usesLeft.getOrDefault(j, 0) > 0) {
                holds.hold(c.output());
            }
            for (int p : f.producers) {
                if (pendingOps.contains(p) && usesLeft.merge(p, -1, Integer::sum) == 0) {
                    holds.drop(redone.get(p).output());
                }
            }
            rerun(j);
            holds.sweep();
        }
        finish(seg);
        holds.sweep();
    }

    int recomputedOps() {
        return recomputedOps;
    }

    long recomputedFlops() {
        return recomputedFlops;
    }

    /** Segment {@code seg} is done: whatever it still holds goes. */
    void finish(int seg) {
        done.put(seg, true);
        for (int k : opsOf.getOrDefault(seg, List.of())) {
            Dropped d = dropped.get(k);
            d.done = true;
            letGo(d);
        }
    }

    /** Every segment is done. */
    void finishAll() {
        for (int seg : new ArrayList<>(opsOf.keySet())) {
            finish(seg);
        }
    }
}
