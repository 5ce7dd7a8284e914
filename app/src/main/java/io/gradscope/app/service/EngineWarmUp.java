package io.gradscope.app.service;

import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.alloc.Retention;
import io.gradscope.engine.recompute.RematPlanner;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.trace.TraceGraph;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a small program through the path a window's run takes (parse, check, plan on the meta device,
 * forward and backward keeping what fits, the trace's graph) once, on a daemon thread started with
 * the window, while the window is built and the first file read.
 *
 * <p>Note [Engine warm-up]: a fresh JVM opening its first program spends most of the run loading and
 * initialising the engine's classes (the op table, the function table, the observers, the trace) and
 * interpreting code the JIT has not compiled yet: a 10,000-node program's parse, plan and run took
 * 1.1-1.4 s in a quiet minute where the same run in a warm JVM takes 0.3 s. Done here first, that work
 * overlaps the window's start. The first run waits for the warm-up to end before it starts ({@link
 * #await}), so that the two never run side by side: ids, allocators and peaks are the process's, and a
 * run's memory figures must be its own. Failures are ignored (it is only a warm-up; the real run
 * reports its own).
 */
final class EngineWarmUp {
    private static final CountDownLatch DONE = new CountDownLatch(1);
    private static boolean started;
    /** How many times the program's ops repeat (a method the JIT compiles is one called a few hundred times). */
    private static final int ROUNDS = 10;

    private EngineWarmUp() {
    }

    /** Starts the warm-up once per process (later calls do nothing). */
    static synchronized void start() {
        // -Dgradscope.warmup=false: none (to measure what it gains).
        if (started || !Boolean.parseBoolean(System.getProperty("gradscope.warmup", "true"))) {
            return;
        }
        started = true;
        Thread t = new Thread(() -> {
            try {
                run();
            } catch (RuntimeException | Error e) {
                // Only a warm-up: the real run reports its own failures.
            } finally {
                DONE.countDown();
            }
        }, "gradscope-engine-warm-up");
        t.setDaemon(true);
        t.start();
    }

    /** Waits until the warm-up, if one was started, is over; an interrupt (Cancel) cancels the run waiting. */
    static void await() {
        synchronized (EngineWarmUp.class) {
            if (!started) {
                return;
            }
        }
        try {
            DONE.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("run cancelled");
        }
    }

    /** The warm-up's program: each common elementwise op, the operators and a product, repeated. */
    static String program() {
        String[] ops = {"tanh(%s)", "relu(%s)", "sigmoid(%s)", "sin(%s)", "cos(%s)", "gelu(%s)", "exp(-%s * %s)",
            "softplus(%s)", "abs(%s)", "log(1 + %s * %s)", "sqrt(1 + %s * %s)",
            "%s * 0.5 + %s", "%s - %s / 2", "%s / (1 + %s * %s)"};
        StringBuilder p = new StringBuilder("x = input(4, 8)\nh0 = x\n");
        int n = 0;
        for (int round = 0; round < ROUNDS; round++) {
            for (String op : ops) {
                String prev = "h" + n;
                p.append("w").append(n + 1).append(" = param(8, 8)\n");
                p.append("m").append(n + 1).append(" = ").append(prev).append(" @ w").append(n + 1).append('\n');
                String m = "m" + (n + 1);
                p.append("h").append(n + 1).append(" = ").append(op.replace("%s", m)).append('\n');
                n++;
            }
        }
        p.append("loss = sum(h").append(n).append(") + mean(h").append(n - 1).append(")\n");
        return p.toString();
    }

    private static void run() {
        Program program = Program.parse("warm-up.grad", program());
        RunOptions options = new RunOptions(DType.FLOAT64, 0, Map.of(), Device.CPU);
        RematPlanner.Planned planned = program.plan(options, RematPolicy.SEGMENTS, true);
        Retention retention = Retention.of(Retention.Kind.FIT, HeapLimit.bytes(), planned.predictedPeak());
        ProgramRun run = program.run(options, planned, retention, (phase, done, total) -> { });
        TraceGraph.of(run.trace());
    }
}
