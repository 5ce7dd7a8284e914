package io.gradscope.engine.autograd;

import io.gradscope.engine.tensor.Tensor;

/**
 * Told of each backward step as it starts, with the upstream gradient its node received. Forward
 * mode installs one (the tangent of that gradient, forward-over-reverse), so autograd does not name
 * it: {@code forward} builds on {@code autograd}, not the other way round. As with the op observers
 * (Note [Op observers] in {@code OpObservers}), a plain array, replaced on install.
 *
 * <pre>{@code
 * StepObservers.install((node, upstream) -> System.out.println(node + " received " + upstream));
 * }</pre>
 */
public final class StepObservers {
    /** One observer of backward steps. */
    @FunctionalInterface
    public interface StepObserver {
        /** Node {@code node} (its id) is about to run its VJP on {@code upstream}. */
        void upstream(long node, Tensor upstream);
    }

    private static volatile StepObserver[] observers = new StepObserver[0];

    private StepObservers() {
    }

    /** Adds {@code observer} after those installed before; it stays for the process. */
    public static synchronized void install(StepObserver observer) {
        StepObserver[] now = java.util.Arrays.copyOf(observers, observers.length + 1);
        now[now.length - 1] = observer;
        observers = now;
    }

    /** Tells every observer, in install order. */
    static void upstream(long node, Tensor upstream) {
        for (StepObserver o : observers) {
            o.upstream(node, upstream);
        }
    }
}
