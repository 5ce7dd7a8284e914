package io.gradscope.engine.trace;

import io.gradscope.engine.memory.MemoryCategory;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;

/**
 * What the engine did, as immutable records. Stepping, replay, the memory timeline and the
 * inspector all read these; nothing calls back into a UI.
 */
public sealed interface TraceEvent {

    /** A forward op ran: {@code node} was produced by {@code op} from the nodes in {@code inputs} (-1: a constant). */
    record OpForward(long node, String op, String label, List<Long> inputs, List<int[]> inputShapes,
                     int[] outputShape) implements TraceEvent {
    }

    /**
     * One step of the backward sweep: {@code node} received its complete upstream gradient and sent
     * each input its contribution.
     */
    record BackwardStep(long node, String op, Tensor upstream, List<Contribution> contributions)
            implements TraceEvent {
    }

    /** The gradient a backward step sends to its input number {@code input} (the node {@code toNode}). */
    record Contribution(int input, long toNode, Tensor gradient) {
    }

    /** Memory was allocated ({@code storage} is its id). */
    record Alloc(long storage, long bytes, MemoryCategory category, String device) implements TraceEvent {
    }

    /** Memory was released. */
    record Free(long storage, long bytes, MemoryCategory category, String device) implements TraceEvent {
    }
}
