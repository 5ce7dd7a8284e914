package io.gradscope.app.service;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.layout.Hierarchy;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.alloc.Retention;
import io.gradscope.engine.lang.ProgramException;
import io.gradscope.engine.onnx.OnnxImport;
import io.gradscope.engine.recompute.RematPlanner;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.Backends;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.trace.TraceGraph;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Runs programs and lays out graphs off the UI thread, and hands immutable results back on it. It
 * owns the run's task (one at a time, cancellable), the fall-back from CUDA to the CPU, and the
 * mapping of engine errors to what the app shows. No JavaFX: the UI thread is an {@link Executor}
 * ({@code Platform::runLater} in the app; the caller's own thread in tests).
 */
public final class RunService {
    /**
     * What to run, what to recompute (the program's checkpoint blocks unless said) and, when not
     * null, the tangent carried through both passes (forward mode, H·v).
     */
    public record Request(String file, String source, DType dtype, Device device, RematPolicy remat, TangentChoice tangent) {
        /** The program's file name, without its folder (for messages). */
        public String name() {
            return fileName(file);
        }

        public Request(String file, String source, DType dtype, Device device) {
            this(file, source, dtype, device, RematPolicy.SEGMENTS, null);
        }

        public Request(String file, String source, DType dtype, Device device, RematPolicy remat) {
            this(file, source, dtype, device, remat, null);
        }
    }

    /** Where a run goes: the device it runs on, and a notice when that is not the one asked for (or ""). */
    public record Start(Device device, String notice) {
    }

    /**
     * What a finished run hands to the UI: the run, the graph read from its trace, positions to draw
     * it at, and the tangent it carried (null: none, or the program no longer has that leaf).
     */
    public record Result(ProgramRun run, TraceGraph graph, GraphLayout.Result layout, OpenTimes times, TangentChoice tangent) {
        public long runMillis() {
            return times.runMillis();
        }

        public long layoutMillis() {
            return times.layoutMillis();
        }
    }

    /** Told on the UI thread how a run goes. */
    public interface Listener {
        /** The run is about to start, on this device. */
        void started(Start start);

        /** How far the run is, from 0 to 1, and what it is doing. */
        void progress(double fraction, String message);

        void succeeded(Result result);

        void failed(RunError error);

        void cancelled();
    }

    private final Executor worker;
    private final Executor ui;
    private FutureTask<Result> running;
    /** Which values the runs keep for the inspector ({@code --retain}; see {@link #defaultRetention}). */
    private volatile Retention.Kind retention = defaultRetention();

    /**
     * The retention runs start with: the system property {@code gradscope.retain} (all, fit or none;
     * {@code gradscope open --retain} sets it), else {@code fit}: what fits in the heap beside the step
     * is kept, the rest recomputed when inspected.
     */
    public static Retention.Kind defaultRetention() {
        String p = System.getProperty("gradscope.retain");
        return p == null ? Retention.Kind.FIT : Retention.Kind.valueOf(p.strip().toUpperCase(java.util.Locale.ROOT));
    }

    /** Which values the next runs keep for the inspector. */
    public void setRetention(Retention.Kind kind) {
        retention = kind;
    }

    public Retention.Kind retention() {
        return retention;
    }

    public RunService(Executor worker, Executor ui) {
        this.worker = worker;
        this.ui = ui;
    }

    /**
     * Runs on a new daemon thread each time, reporting through {@code ui}. The window's service: the
     * engine is warmed up meanwhile ({@link EngineWarmUp}), before the first run.
     */
    public static RunService background(Executor ui) {
        EngineWarmUp.start();
        return new RunService(r -> {
            Thread t = new Thread(r, "gradscope-run");
            t.setDaemon(true);
            t.start();
        }, ui);
    }

    /** Runs on the caller's thread and reports before returning (tests, benchmarks). */
    public static RunService direct() {
        return new RunService(Runnable::run, Runnable::run);
    }

    public boolean isRunning() {
        return running != null;
    }

    /**
     * Starts a run unless one is running (then returns false). CUDA asked for where there is none runs
     * on the CPU, and the listener's {@code started} says so.
     */
    public boolean run(Request request, Listener listener) {
        if (running != null) {
            return false;
        }
        Start start = new Start(request.device(), "");
        if (request.device() == Device.CUDA && !Backends.cudaAvailable()) {
            start = new Start(Device.CPU, "CUDA unavailable: " + Backends.cudaProblem() + "; ran on the CPU. ");
        }
        RunOptions options = options(new Request(request.file(), request.source(), request.dtype(), start.device()));
        AtomicReference<Runnable> pendingProgress = new AtomicReference<>();
        Retention.Kind keep = retention;
        FutureTask<Result> task = new FutureTask<>(() -> call(request, options, keep, (f, m) -> {
            // Coalesce: at most one progress report waits on the UI thread; its message is written there.
            if (pendingProgress.getAndSet(() -> listener.progress(f, m.get())) == null) {
                ui.execute(() -> pendingProgress.getAndSet(null).run());
            }
        })) {
            @Override
            protected void done() {
                ui.execute(() -> finish(this, listener));
            }
        };
        running = task;
        listener.started(start);
        listener.progress(0, "Running " + request.name() + "…");
        worker.execute(task);
        return true;
    }

    /** Cancels the running run (its listener is told). */
    public void cancel() {
        if (running != null) {
            running.cancel(true);
        }
    }

    /**
     * How far a run is, told from the worker after every statement and backward step: the message is
     * written only for the report the UI thread shows (30,000 steps at 10,000 nodes; most are coalesced).
     */
    @FunctionalInterface
    private interface Progress {
        void update(double fraction, Supplier<String> message);
    }

    private static Result call(Request request, RunOptions options, Retention.Kind keep, Progress progress) {
        String file = request.file();
        OpenTimes.Clock clock = new OpenTimes.Clock();
        // No run beside the warm-up: the engine's ids, allocators and peaks are the process's (counted in parse).
        EngineWarmUp.await();
        // Progress: the forward statements are the first half of the bar, the backward steps the second.
        // The plan's peak is predicted (on the meta device) for the memory panel to show beside the measured one.
        Program program = Program.parse(file, request.source());
        clock.mark();
        TangentChoice tangent = TangentRuns.usable(program, options, request.tangent());
        RematPlanner.Planned planned = program.plan(options, request.remat(), predicts(program, request, options));
        clock.mark();
        String running = tangent == null ? "Running " : "Running with the tangent " + tangent.describe() + ": ";
        // What the inspector keeps: a budget beside the step's predicted peak (Retention#defaultBudget); the rest is recomputed on demand.
        Retention retention = Retention.of(keep, HeapLimit.bytes(), planned.predictedPeak());
        // Each run's reserved bytes are its own: the run before (still shown) and its cache do not count in them.
        io.gradscope.engine.tensor.Allocators.startRun();
        ProgramRun run = TangentRuns.carrying(program, options, tangent, () -> program.run(options, planned, retention, (phase, done, total) -> {
            if (Thread.currentThread().isInterrupted()) {
                // Cancel stops the run at its next statement or step, not after it (minutes at 50,000 nodes).
                throw new CancellationException("run cancelled");
            }
            double f = total == 0 ? 1 : (double) done / total;
            progress.update(phase.equals("forward") ? f / 2 : 0.5 + f / 2,
                    () -> (phase.equals("forward") ? running : "Backward pass of ") + file + ": " + done + " of " + total);
        }));
        clock.mark();
        TraceGraph graph = TraceGraph.of(run.trace());
        clock.mark();
        if (Thread.currentThread().isInterrupted()) {
            throw new CancellationException("run cancelled");
        }
        progress.update(1.0, () -> "Laying out " + graph.size() + " nodes…");
        GraphLayout layouts = GraphLayout.of(graph);
        GraphLayout.Result layout = layouts.layout(collapsedOnOpen(layouts.hierarchy(), program));
        clock.mark();
        return new Result(run, graph, layout, clock.done(), tangent);
    }

    /** A program longer than this many lines is not run a second time (on the meta device) only to predict its peak. */
    static final int PREDICT_LINES = 2_000;

    /**
     * Whether the run's plan predicts its peak. The prediction is a whole second run (on the meta
     * device), the largest part of opening a 10,000-line program; with nothing to plan (no checkpoint
     * blocks, or no recomputation) on the CPU, the run measures that same peak itself, so a long
     * program skips it and the memory panel shows the measured peak alone.
     */
    static boolean predicts(Program program, Request request, RunOptions options) {
        boolean nothingToPlan = request.remat().kind() == io.gradscope.engine.recompute.RematPolicy.Kind.NONE
                || (request.remat().kind() == io.gradscope.engine.recompute.RematPolicy.Kind.SEGMENTS && !program.hasCheckpointBlocks());
        return !nothingToPlan || options.device() != Device.CPU || request.tangent() != null
                || atMostLines(request.source(), PREDICT_LINES);
    }

    /**
     * Whether {@code text} has at most {@code n} line breaks. Found with indexOf (an intrinsic, fast in a
     * JVM that has compiled nothing yet): a stream over the characters of a 10,000-line program was 6% of
     * the first open's worker samples.
     */
    static boolean atMostLines(String text, int n) {
        int count = 0;
        for (int i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
            if (++count > n) {
                return false;
            }
        }
        return true;
    }

    /**
     * What a run's graph is first shown with collapsed: repeated structure folded ("block ×150"), long
     * stretches without repeats folded into sections of consecutive lines ("lines 40–79: tanh, …"); groups
     * expanded, except in a model imported from ONNX (its header says so), which opens as its top-level
     * modules, a handful of boxes to expand.
     */
    public static Set<String> collapsedOnOpen(Hierarchy hierarchy, Program program) {
        Set<String> out = new java.util.LinkedHashSet<>(hierarchy.runs());
        out.addAll(hierarchy.sections());
        if (OnnxImport.importedFrom(program).isPresent()) {
            out.addAll(hierarchy.outermost());
        }
        return out;
    }

    private void finish(FutureTask<Result> done, Listener listener) {
        if (done != running) {
            return;
        }
        running = null;
        if (done.isCancelled()) {
            listener.cancelled();
            return;
        }
        try {
            listener.succeeded(done.get());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CancellationException) {
                listener.cancelled();
            } else {
                listener.failed(errorOf(e.getCause()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            listener.cancelled();
        }
    }

    /** A program's file name without its folder: what the window shows of the path a run is given. */
    static String fileName(String file) {
        int slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf(java.io.File.separatorChar));
        return file.substring(slash + 1);
    }

    /**
     * What the app shows for a failed run: a program mistake at its position (named by the file's
     * name, as the editor shows one file), an engine refusal, or an internal error.
     */
    public static RunError errorOf(Throwable error) {
        if (error instanceof ProgramException pe) {
            return new RunError(fileName(pe.file()) + ":" + pe.line() + ":" + pe.column() + ": error: " + pe.what(), pe.what(),
                    pe.line(), pe.column(),
                    "Error at line " + pe.line() + ", column " + pe.column() + ": " + pe.what());
        }
        if (error instanceof GradscopeException ge) {
            return new RunError("error: " + ge.getMessage(), ge.getMessage(), 0, 0, "error: " + ge.getMessage());
        }
        return new RunError("internal error: " + error, String.valueOf(error), 0, 0, "Internal error: " + error);
    }

    /**
     * Lays out a graph with the {@code collapsed} containers off the UI thread, reusing what {@code layouts}
     * laid out before; {@code done} gets the result or the failure.
     */
    public void layout(GraphLayout layouts, Set<String> collapsed, BiConsumer<GraphLayout.Result, Throwable> done) {
        Set<String> groups = Set.copyOf(collapsed);
        worker.execute(() -> {
            GraphLayout.Result result = null;
            Throwable failure = null;
            try {
                result = layouts.layout(groups);
            } catch (RuntimeException | Error e) {
                failure = e;
            }
            GraphLayout.Result r = result;
            Throwable f = failure;
            ui.execute(() -> done.accept(r, f));
        });
    }

    /** Runs {@code r} on the UI thread (progress from a worker). */
    public void onUi(Runnable r) {
        ui.execute(r);
    }

    /** The options a request runs with (seed 0, no input files), as {@link #run} uses them. */
    public static RunOptions options(Request request) {
        return new RunOptions(request.dtype(), 0, Map.of(), request.device());
    }

    /**
     * Runs {@code work} off the UI thread (a gradient check, a Hessian, a second run to compare) and
     * hands its result, or its failure, to {@code done} on the UI thread.
     */
    public <T> void submit(java.util.concurrent.Callable<T> work, BiConsumer<T, Throwable> done) {
        later.execute(() -> worker.execute(() -> {
            T result = null;
            Throwable failure = null;
            try {
                result = work.call();
            } catch (Exception | Error e) {
                failure = e;
            }
            T r = result;
            Throwable f = failure;
            ui.execute(() -> done.accept(r, f));
        }));
    }

    /** Starts the work of {@link #submit}: at once, unless {@link #submittingAfter} said otherwise. */
    private Executor later = Runnable::run;

    /**
     * Starts the work handed to {@link #submit} when {@code later} runs it: in the window once the next
     * frame is drawn, so that what a shown run sets off (the memory track, the NaN-origin search, the
     * health counts) does not compete with its first frame for the two cores. Returns this service.
     */
    public RunService submittingAfter(Executor later) {
        this.later = later;
        return this;
    }
}
