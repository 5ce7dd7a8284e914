package io.gradscope.app.cli;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Ctrl+C (SIGINT, or SIGTERM) during a long command ({@code jacobian}, {@code gradcheck},
 * {@code hvp}): the JVM's shutdown hook asks the work to stop (the flag the engine's loops ask
 * between rows and products, and an interrupt the interpreter answers at its next statement), waits
 * for it to end, and says so in one line; the status is the shell's for a SIGINT, 130. No output is
 * left half-written: {@code --out} goes to a new folder that replaces the old one only when complete,
 * and {@link #check} is asked just before it does.
 */
final class Interrupt {
    /** The exit status after Ctrl+C: 128 + SIGINT's 2, as a shell gives. */
    static final int STATUS = 130;

    private static volatile boolean requested;
    private static volatile boolean installed;
    private static final CountDownLatch FINISHED = new CountDownLatch(1);

    private Interrupt() {
    }

    /** Thrown by {@link #check} once Ctrl+C was pressed. */
    static final class Stopped extends RuntimeException {
        Stopped() {
            super("interrupted", null, false, false);
        }
    }

    /** Lets {@code command}, running on this thread, be stopped by Ctrl+C (once a process). */
    static synchronized void install(String command) {
        if (installed) {
            return;
        }
        installed = true;
        Thread work = Thread.currentThread();
        PrintStream err = System.err;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (FINISHED.getCount() == 0) {
                return; // an ordinary exit
            }
            requested = true;
            work.interrupt();
            try {
                FINISHED.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            err.println("interrupted: " + command + " stopped on Ctrl+C" + (OutputFolder.wroteAny() ? "" : "; nothing was written"));
            err.flush();
        }, "gradscope-interrupt"));
    }

    /** Whether Ctrl+C was pressed. */
    static boolean requested() {
        return requested;
    }

    /** {@link #requested} as the engine's loops ask it. */
    static BooleanSupplier flag() {
        return Interrupt::requested;
    }

    /** Throws {@link Stopped} once Ctrl+C was pressed. */
    static void check() {
        if (requested) {
            throw new Stopped();
        }
    }

    /** The command has returned or failed: the hook has nothing to wait for. */
    static void finished() {
        FINISHED.countDown();
    }
}
