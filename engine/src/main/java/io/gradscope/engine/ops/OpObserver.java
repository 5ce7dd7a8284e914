package io.gradscope.engine.ops;

import io.gradscope.engine.tensor.Tensor;

/**
 * Told of every op {@link Ops} applies, once its output exists. The packages built on the op table
 * install one each ({@link OpObservers#install}) rather than {@code Ops} calling them by hand:
 * autograd records the output's node, forward mode computes its tangent; ops itself publishes the
 * trace's forward event. See Note [Op observers] in {@link OpObservers}.
 *
 * <pre>{@code
 * OpObservers.install(OpObserver.FORWARD_MODE, (op, ctx, out, mode) -> { ... });
 * }</pre>
 */
@FunctionalInterface
public interface OpObserver {
    /** Autograd's place: first, before the op's allocations are announced (they are owned by the node's id). */
    int AUTOGRAD = -100;
    /** The trace's forward event: after the allocations' events, before any tangent's. */
    int TRACE = 100;
    /** Forward mode's tangents: last (their own ops run inside). */
    int FORWARD_MODE = 200;

    /**
     * Called as {@code op} has computed {@code out} from {@code ctx}'s inputs, on the thread that ran
     * it; {@code mode} is the thread's {@code GradMode} bits as the op ran. Must be cheap when it has
     * nothing to do: every op calls it.
     */
    void applied(Op op, OpContext ctx, Tensor out, int mode);

    /**
     * Whether this observer needs VJPs written in differentiable ops now (forward mode carrying
     * tangents through a backward pass); see {@link Ops#differentiating()}.
     */
    default boolean differentiating() {
        return false;
    }
}
