package io.gradscope.engine.autograd;

import io.gradscope.engine.ops.Op;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Source;

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
}
