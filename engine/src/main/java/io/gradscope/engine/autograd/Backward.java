package io.gradscope.engine.autograd;

import io.gradscope.engine.tensor.Tensor;

/**
 * Reverse-mode differentiation from a scalar objective (seed gradient 1).
 *
 * <pre>{@code
 * Gradients grads = Backward.run(loss);   // leaves' .grad() are set too
 * Tensor dW = grads.of(w);
 * }</pre>
 */
public final class Backward {
    private Backward() {
    }

    /** Runs the whole sweep. Leaves get their gradient (replacing any earlier one). */
    public static Gradients run(Tensor objective) {
        return start(objective).finish();
    }

    /** Starts a sweep to advance step by step. */
    public static BackwardRun start(Tensor objective) {
        return new BackwardRun(objective, false, null);
    }

    /**
     * A sweep of a training step: what each node's VJP read is let go of once its step is done, an
     * intermediate gradient once sent on, and checkpoint segments are recomputed when reached
     * (see {@link StepLifetimes}).
     */
    public static BackwardRun startStep(Tensor objective, StepLifetimes lifetimes) {
        return new BackwardRun(objective, false, lifetimes);
    }

    /** A sweep whose gradients are themselves recorded, so they can be differentiated again. */
    public static BackwardRun startCreatingGraph(Tensor objective) {
        return new BackwardRun(objective, true, null);
    }
}
