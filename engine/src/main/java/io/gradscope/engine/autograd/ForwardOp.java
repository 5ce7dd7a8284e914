package io.gradscope.engine.autograd;

import io.gradscope.engine.ops.Op;
import io.gradscope.engine.recompute.StepProfile;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Source;
import java.util.ArrayList;
import java.util.List;

/** One forward op of a step as it ran, numbered in order: what a recomputation runs again. */
final class ForwardOp {
    int index;
    long id;
    Op op;
    Tensor[] inputs;
    /** For each input, the forward op that made it, or -1 (a leaf, a constant). */
    int[] producers;
    Tensor out;
    /** Its node, or null when its value needs no gradient. */
    Node node;
    Source source;
    long flops;
    long savedBytes;
    boolean readByBackward;

    /** The ops as the planner sees them (see {@link StepProfile}); {@code objective} is the objective's op or -1. */
    static StepProfile profile(List<ForwardOp> forward, int objective) {
        List<StepProfile.Op> ops = new ArrayList<>(forward.size());
        for (ForwardOp f : forward) {
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
