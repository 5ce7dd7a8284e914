package io.gradscope.engine.run;

import io.gradscope.engine.autograd.Gradients;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Trace;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import java.util.Map;

/**
 * The result of running a program: the objective, every named value, the gradients of the
 * leaves that need one, the checkpoint segments (statement names), the trace of everything
 * the engine did, and what it did with memory. The graph is the trace's: {@link TraceGraph#of(Trace)}.
 * A run that did not retain its values has only the leaves' values (a parameter's, a given input's)
 * and the leaves' gradients left, and its trace keeps no tensors. The run carries the parsed program
 * it ran, so what runs it again (a replay, a comparison, a plan) need not parse its text again.
 */
public record ProgramRun(Tensor objective, Map<String, Tensor> values, List<Leaf> leaves, Gradients gradients,
                         List<List<String>> checkpointSegments, Trace trace, StepMemory memory, Program program) {

    /** A run built by hand: no memory information and no program. */
    public ProgramRun(Tensor objective, Map<String, Tensor> values, List<Leaf> leaves, Gradients gradients,
                      List<List<String>> checkpointSegments, Trace trace) {
        this(objective, values, leaves, gradients, checkpointSegments, trace, null, null);
    }

    /** The memory timeline of the run's device. */
    public io.gradscope.engine.alloc.MemoryTimeline timeline() {
        return io.gradscope.engine.alloc.MemoryTimeline.of(trace, memory != null ? memory.device() : null);
    }

    /** The gradient of the objective for a leaf that needs one (zeros if it does not reach the objective). */
    public Tensor gradient(String leaf) {
        Tensor t = values.get(leaf);
        if (t == null || !t.requiresGrad()) {
            return null;
        }
        Tensor g = gradients == null ? null : gradients.of(t);
        return g != null ? g : Tensor.zeros(t.dtype(), t.shape());
    }

    /** The groups the program's values are in, each once, in order of appearance (read from the trace). */
    public List<String> groups() {
        return TraceGraph.of(trace).groupNames();
    }
}
