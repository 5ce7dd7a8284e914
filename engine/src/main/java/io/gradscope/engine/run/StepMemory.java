package io.gradscope.engine.run;

import io.gradscope.engine.alloc.MemoryTimeline;
import io.gradscope.engine.recompute.RematPlan;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.recompute.StepProfile;

/**
 * What a run did with memory: the policy and the plan it gave, the peak the plan predicted (from a
 * meta-device run; -1 when nothing was predicted), whether a budget fits, the ops recomputed and
 * their estimated FLOPs, whether values were retained (and which: {@code retention}; {@code dropped}
 * the bytes of values and gradients it released that {@code all} would have kept), the forward
 * ops' profile and the device. The timeline itself is read from the trace: {@link MemoryTimeline#of}.
 */
public record StepMemory(RematPolicy policy, RematPlan plan, long predictedPeak, boolean fits, int recomputedOps,
                         long recomputedFlops, boolean retained, StepProfile profile, String device,
                         io.gradscope.engine.alloc.Retention retention, long dropped) {

    /** A step that retained all its values, or none. */
    public StepMemory(RematPolicy policy, RematPlan plan, long predictedPeak, boolean fits, int recomputedOps,
                      long recomputedFlops, boolean retained, StepProfile profile, String device) {
        this(policy, plan, predictedPeak, fits, recomputedOps, recomputedFlops, retained, profile, device,
                retained ? io.gradscope.engine.alloc.Retention.ALL : io.gradscope.engine.alloc.Retention.NONE, 0);
    }
}
