package io.gradscope.engine.recompute;

import java.util.List;

/**
 * The forward ops of one training step as the planner sees them: for each op (in the order they
 * ran), what it read, how large its value and its saved tensors are, whether a backward step reads
 * its value, and what it costs to run again. Gathered by a step's lifetimes while it runs (usually a
 * run on the meta device, which computes nothing: see {@code Device.META}).
 *
 * @param ops the forward ops, {@code ops.get(k).index() == k}
 * @param objective the op whose value is the objective, or -1
 */
public record StepProfile(List<Op> ops, int objective) {
    /**
     * One forward op.
     *
     * @param index its number in the step (from 0)
     * @param node the trace's id for its value
     * @param op the op's name; {@code label} with attributes
     * @param inputs for each input, the op that made it, or -1 (a leaf, a constant)
     * @param bytes its value's bytes (0 for a view: it shares its input's storage)
     * @param savedBytes the bytes of the tensors its forward saved for its VJP
     * @param readByBackward whether some node's VJP reads its value
     * @param recorded whether it has a node (its value needs a gradient)
     * @param flops the estimated cost of running it again
     * @param block the {@code with checkpoint()} block it is in (innermost), or -1
     * @param line its program line (0 if none)
     */
    public record Op(int index, long node, String op, String label, int[] inputs, long bytes, long savedBytes,
                     boolean readByBackward, boolean recorded, long flops, int block, int line) {
    }

    /** How many forward ops. */
    public int size() {
        return ops.size();
    }

    /** Op number {@code k}. */
    public Op op(int k) {
        return ops.get(k);
    }
}
