package io.gradscope.engine.program;

import io.gradscope.engine.memory.MemoryTimeline;
import io.gradscope.engine.memory.RematPlan;
import io.gradscope.engine.memory.RematPolicy;
import io.gradscope.engine.memory.StepProfile;

/**
 * What a run did with memory: the policy and the plan it gave, the peak the plan predicted (from a
 * meta-device run; -1 when nothing was predicted), whether a budget fits, the ops recomputed and
 * their estimated FLOPs, whether values were retained (and which: {@code retention}; {@code dropped}
 * the bytes of values and gradients it released that {@code all} would have kept), the forward
 * ops' profile and the device. The timeline itself is read from the trace: {@link MemoryTimeline#of}.
 */
public record StepMemory(RematPolicy policy, RematPlan plan, long predictedPeak, boolean fits, int recomputedOps,
                         long recomputedFlops, boolean retained, StepProfile profile, String device,
                         io.gradscope.engine.memory.Retention retention, long dropped) {

    /** A step that retained all its values, or none. */
    public StepMemory(RematPolicy policy, RematPlan plan, long predictedPeak, boolean fits, int recomputedOps,
                      long recomputedFlops, boolean retained, StepProfile profile, String device) {
        this(policy, plan, predictedPeak, fits, recomputedOps, recomputedFlops, retained, profile, device,
                retained ? io.gradscope.engine.memory.Retention.ALL : io.gradscope.engine.memory.Retention.NONE, 0);
    }
}
