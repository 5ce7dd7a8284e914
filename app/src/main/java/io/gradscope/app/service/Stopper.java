package io.gradscope.app.service;

import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;

/**
 * The stop of one piece of work off the UI thread: a flag the work asks between its steps, and an
 * interrupt of the thread running it, which the engine's interpreter answers at its next statement
 * (a Hessian column is a whole run of the program). The interrupt reaches only this work: it is
 * cleared, under the same lock, before the pooled thread goes on to the next.
 */
public final class Stopper {
    private boolean stopped;
    private Thread running;

    /** Whether {@link #stop} was called. */
    public synchronized boolean stopped() {
        return stopped;
    }

    /** Stops the work: its next check, or its next statement when it is inside a run. */
    public synchronized void stop() {
        stopped = true;
        if (running != null) {
            running.interrupt();
        }
    }

    /** Runs {@code work} on this thread, interruptible by {@link #stop}; a stop before it starts throws at once. */
    public <T> Callable<T> around(Callable<T> work) {
        return () -> {
            synchronized (this) {
                if (stopped) {
                    throw new CancellationException("stopped");
                }
                running = Thread.currentThread();
            }
            try {
                return work.call();
            } finally {
                synchronized (this) {
                    running = null;
                    Thread.interrupted();
                }
            }
        };
    }
}
