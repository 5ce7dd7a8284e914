package io.gradscope.engine.run;

import io.gradscope.engine.recompute.RematPolicy;

/**
 * How a run treats memory: what it recomputes ({@link RematPolicy}), and whether it retains every
 * value and gradient for the inspector (held for inspection, accounted apart) or releases them as a
 * plain training step does (the trace then keeps no tensors).
 *
 * <pre>{@code
 * program.run(options, new MemoryOptions(RematPolicy.SQRT, false), Program.Progress.NONE);
 * }</pre>
 */
public record MemoryOptions(RematPolicy policy, boolean retain) {
    /** The program's checkpoint blocks, every value retained: what the app and {@code gradscope run} do. */
    public static final MemoryOptions DEFAULT = new MemoryOptions(RematPolicy.SEGMENTS, true);
}
