package io.gradscope.engine.trace;

import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.StorageRole;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the engine did, as immutable records. Stepping, replay, the memory timeline, the graph view
 * and the inspector all read these; nothing calls back into a UI.
 *
 * <p>Every value the trace names has an id, {@code node}: its autograd node's id when it has one
 * (so {@link BackwardStep#node()} refers to it), else an id of its own from the same sequence.
 * An input id of -1 is a value the trace never named (a literal constant, or a tensor made before
 * recording started).
 */
public sealed interface TraceEvent {

    /**
     * A forward op ran: the value {@code node} was produced by {@code op} ({@code label}: with its
     * attributes; {@code rule}: its VJP as text) from the values in {@code inputs}, at {@code source}.
     * {@code shown}: what the op has worth showing beyond its value, by name, in the op's order
     * (dropout's mask; see {@code Op.shown}), empty for most ops. Its tensors are kept or dropped
     * as the value is: null-free, a stand-in ({@link NotRetained}) where the run did not retain one.
     */
    record OpForward(long node, String op, String label, String rule, List<Long> inputs, List<int[]> inputShapes,
                     int[] outputShape, Tensor value, boolean requiresGrad, Source source, Map<String, Tensor> shown)
            implements TraceEvent {

        public OpForward {
            shown = shown == null || shown.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(shown));
        }

        /** An event with nothing shown beyond the value. */
        public OpForward(long node, String op, String label, String rule, List<Long> inputs, List<int[]> inputShapes,
                         int[] outputShape, Tensor value, boolean requiresGrad, Source source) {
            this(node, op, label, rule, inputs, inputShapes, outputShape, value, requiresGrad, source, Map.of());
        }

        /** The event for an op applied to {@code inputs} giving {@code output}, at the recorder's current source. */
        public static OpForward of(String op, String label, String rule, Tensor[] inputs, Tensor output) {
            return of(op, label, rule, inputs, output, Map.of());
        }

        /** As {@link #of(String, String, String, Tensor[], Tensor)}, with what the op shows beyond its value. */
        public static OpForward of(String op, String label, String rule, Tensor[] inputs, Tensor output, Map<String, Tensor> shown) {
            List<Long> ids = new ArrayList<>(inputs.length);
            List<int[]> shapes = new ArrayList<>(inputs.length);
            for (Tensor t : inputs) {
                ids.add(Recorder.idOf(t));
                shapes.add(t.shape());
            }
            return new OpForward(Recorder.name(output), op, label, rule, List.copyOf(ids), List.copyOf(shapes), output.shape(),
                    output, output.requiresGrad(), Recorder.source(), shown);
        }

        /** This event with its value replaced by {@code newValue} and each shown tensor by {@code change} of it. */
        OpForward withTensors(Tensor newValue, java.util.function.UnaryOperator<Tensor> change) {
            Map<String, Tensor> s = new LinkedHashMap<>();
            shown.forEach((k, t) -> s.put(k, change.apply(t)));
            return new OpForward(node, op, label, rule, inputs, inputShapes, outputShape, newValue, requiresGrad, source, s);
        }
    }

    /** What a program declared a leaf as. */
    enum LeafKind { INPUT, PARAM, LABELS }

    /** A program declared a leaf: {@code name = input(...)}, {@code param(...)} or {@code labels(...)}. */
    record Leaf(long node, String name, LeafKind kind, Tensor value, boolean requiresGrad, Source source)
            implements TraceEvent {

        /** The event for a leaf {@code value} declared as {@code name}, at the recorder's current source. */
        public static Leaf of(String name, LeafKind kind, Tensor value) {
            return new Leaf(Recorder.name(value), name, kind, value, value.requiresGrad(), Recorder.source());
        }
    }

    /** A program statement bound {@code name} to the value {@code node}. */
    record Named(long node, String name, Source source) implements TraceEvent {
    }

    /** The value {@code node} is the program's objective (its last statement). */
    record Objective(long node) implements TraceEvent {
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

    /**
     * Forward mode carried a tangent: in the forward pass ({@code backward} false) the value
     * {@code node}'s tangent J·v, with the op's JVP rule; in the backward pass of a
     * forward-over-reverse run, the tangent of the upstream gradient {@code node} received (the
     * second sweep of a Hessian-vector product).
     */
    record Tangent(long node, boolean backward, Tensor tangent, String rule) implements TraceEvent {
    }

    /**
     * Memory was allocated, or handed to a new category: {@code storage} is its id, {@code bytes} its
     * size as requested (active bytes). {@code node} is the value it belongs to (-1 when none is
     * known): the op's value, the node whose gradient it is, the leaf; {@code role} what it is to that
     * value, {@code shape} the shape it was made for. {@code reserved}: the bytes the device's
     * allocator held in segments right after (cached blocks included), so the timeline shows both.
     */
    record Alloc(long storage, long bytes, MemoryCategory category, String device, long node, StorageRole role, int[] shape,
                 long reserved) implements TraceEvent {
    }

    /** Memory was released (or left its category: an {@link Alloc} of the same storage follows). */
    record Free(long storage, long bytes, MemoryCategory category, String device, long reserved) implements TraceEvent {
    }

    /** The device's allocator gave cached segments back to the system: it now holds {@code reserved} bytes. */
    record Reserved(long reserved, String device) implements TraceEvent {
    }

    /**
     * The backward sweep reached a checkpoint segment and ran one of its forward ops again: the
     * value {@code node} (the id the forward pass gave it), recomputed as {@code op} ({@code label})
     * at an estimated {@code flops}; {@code value} is the recomputed value (null when the run keeps
     * no values).
     */
    record Recompute(long node, String op, String label, int segment, long flops, Tensor value, Source source)
            implements TraceEvent {
    }
}
