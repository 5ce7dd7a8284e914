package io.gradscope.app.service;

import io.gradscope.engine.run.Program;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * How far work off the UI thread is (a Jacobian's products, a Hessian's columns, a second run),
 * handed to the UI thread only when its whole percent changes, so a run of 30,000 steps posts at
 * most a hundred updates. Told from the worker thread.
 */
public final class Fraction {
    /** Shown on the UI thread: the fraction done and the counts it came from. */
    @FunctionalInterface
    public interface Shown {
        void at(double fraction, long done, long total);
    }

    private final RunService service;
    private final Shown shown;
    private volatile int percent = -1;

    public Fraction(RunService service, Shown shown) {
        this.service = service;
        this.shown = shown;
    }

    /** {@code done} of {@code total} (a total of 0 is all done). */
    public void done(long done, long total) {
        int p = total <= 0 ? 100 : (int) (100 * done / total);
        if (p != percent) {
            percent = p;
            service.onUi(() -> shown.at(p / 100.0, done, total));
        }
    }

    /**
     * A program run's progress: its forward statements the first half, its backward steps the
     * second; once {@code stop} says so, the run is stopped at its next statement or step (a {@link
     * CancellationException}).
     */
    public Program.Progress run(BooleanSupplier stop) {
        return (phase, done, total) -> {
            if (stop.getAsBoolean()) {
                throw new CancellationException("stopped");
            }
            long half = Math.max(1, total);
            done(phase.equals("forward") ? done : half + done, 2 * half);
        };
    }
}
