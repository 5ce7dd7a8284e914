package io.gradscope.app.viewmodel;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.diagnose.RunDiff;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceGraph;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/**
 * The run on screen compared with a second run, value by value, by the engine's {@link RunDiff}:
 * the same program in the other float dtype (run off the UI thread), or the run shown before it.
 * This keeps the rows by vertex. A part of {@link DiagnosticsViewModel}.
 */
public final class ComparisonViewModel {
    /**
     * Two runs compared: {@code rows} from {@link RunDiff} (largest difference first), the other run
     * and its graph, which side the run on screen is ({@code currentIsA}: the compared run; else
     * the reference), and the labels of the two sides.
     */
    public record Comparison(String labelA, String labelB, boolean currentIsA, ProgramRun other, TraceGraph otherGraph,
                             List<RunDiff.Row> rows, Map<Integer, io.gradscope.engine.tensor.Tensor[]> pytorch, String summary) {
        public Comparison(String labelA, String labelB, boolean currentIsA, ProgramRun other, TraceGraph otherGraph, List<RunDiff.Row> rows) {
            this(labelA, labelB, currentIsA, other, otherGraph, rows, null, null);
        }

        /**
         * PyTorch's value and gradient of a vertex ("vs PyTorch": the other run is PyTorch's captured step,
         * not a trace), either null where PyTorch recorded none; null for a comparison of two runs.
         */
        public io.gradscope.engine.tensor.Tensor[] pytorchOf(int vertex) {
            return pytorch == null ? null : pytorch.getOrDefault(vertex, new io.gradscope.engine.tensor.Tensor[2]);
        }

        /** The label of the run on screen and of the other one. */
        public String currentLabel() {
            return currentIsA ? labelA : labelB;
        }

        public String otherLabel() {
            return currentIsA ? labelB : labelA;
        }

        /** The vertex of the run on screen a row is about. */
        public int currentVertex(RunDiff.Row r) {
            return currentIsA ? r.vertexA() : r.vertexB();
        }

        /** The vertex of the other run a row is about. */
        public int otherVertex(RunDiff.Row r) {
            return currentIsA ? r.vertexB() : r.vertexA();
        }
    }

    private final SweepViewModel sweep;
    private final RunService service;
    private final Consumer<String> report;
    private final Supplier<RunService.Request> shownRequest;
    private final Runnable changed;
    private final ReadOnlyBooleanWrapper comparing = new ReadOnlyBooleanWrapper(this, "comparing");
    private final javafx.beans.property.ReadOnlyDoubleWrapper progress = new javafx.beans.property.ReadOnlyDoubleWrapper(this, "progress");
    /** Set to stop the second run going on at its next statement (Cancel, or a new run on screen). */
    private java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    private final ReadOnlyObjectWrapper<Comparison> comparison = new ReadOnlyObjectWrapper<>(this, "comparison");
    private final Map<Integer, RunDiff.Row> diffByVertex = new HashMap<>();
    private Sweep previous;
    private int request;

    ComparisonViewModel(SweepViewModel sweep, RunService service, Consumer<String> report,
                        Supplier<RunService.Request> shownRequest, Runnable changed) {
        this.sweep = sweep;
        this.service = service;
        this.report = report;
        this.shownRequest = shownRequest;
        this.changed = changed;
    }

    public ReadOnlyBooleanProperty comparing() {
        return comparing.getReadOnlyProperty();
    }

    /** How far the second run is, from 0 to 1. */
    public javafx.beans.property.ReadOnlyDoubleProperty progress() {
        return progress.getReadOnlyProperty();
    }

    /** Stops the second run going on at its next statement; the comparison shown before stays. */
    public void cancel() {
        if (comparing.get()) {
            stop.set(true);
            request++;
            comparing.set(false);
            report.accept("Comparison cancelled");
        }
    }

    /** The comparison with a second run, or null. */
    public ReadOnlyObjectProperty<Comparison> comparison() {
        return comparison.getReadOnlyProperty();
    }

    /** The comparison row of a vertex, or null. */
    public RunDiff.Row difference(int vertex) {
        return diffByVertex.get(vertex);
    }

    /** Every vertex's comparison row. */
    Iterable<RunDiff.Row> differences() {
        return diffByVertex.values();
    }

    /** Runs the program on screen in the other float dtype and compares: float32 against float64. */
    public void compareDTypes() {
        RunService.Request r = shownRequest.get();
        Sweep s = sweep.recorded().get();
        if (r == null || s == null || comparing.get()) {
            return;
        }
        DType other = r.dtype() == DType.FLOAT64 ? DType.FLOAT32 : DType.FLOAT64;
        RunService.Request o = new RunService.Request(r.file(), r.source(), other, r.device());
        int id = request;
        comparing.set(true);
        progress.set(0);
        java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
        stop = stopping;
        report.accept("Running " + r.name() + " in " + name(other) + " to compare…");
        io.gradscope.app.service.Fraction told = new io.gradscope.app.service.Fraction(service, (f, done, of) -> {
            if (id == request) {
                progress.set(f);
            }
        });
        service.submit(() -> s.run().program().run(RunService.options(o), told.run(stopping::get)), (run, failure) -> {
            if (id != request) {
                return;
            }
            comparing.set(false);
            if (failure != null) {
                report.accept("Cannot compare: " + RunService.errorOf(failure).what());
                return;
            }
            boolean currentIs32 = r.dtype() == DType.FLOAT32;
            show(new Comparison("float32", "float64", currentIs32, run, TraceGraph.of(run.trace()),
                    currentIs32 ? RunDiff.of(s.run().trace(), run.trace()) : RunDiff.of(run.trace(), s.run().trace())));
        });
    }

    /** Compares the run on screen with the one before it (before an edit, another dtype or device). */
    public void compareWithPrevious() {
        Sweep s = sweep.recorded().get();
        if (s == null) {
            return;
        }
        if (previous == null) {
            report.accept("No previous run to compare with: run again after an edit");
            return;
        }
        show(new Comparison("this run", "the previous run", true, previous.run(), previous.graph(),
                RunDiff.of(s.run().trace(), previous.run().trace())));
    }

    /**
     * Sets PyTorch's own step beside the run on screen, when the program came from a captured step
     * ({@code gradscope open STEP/}): rows in topological order, nodes coloured by their relative error,
     * and the first divergence selected.
     */
    public void compareWithPyTorch() {
        RunService.Request r = shownRequest.get();
        Sweep s = sweep.recorded().get();
        if (r == null || s == null) {
            return;
        }
        io.gradscope.app.service.StepImport.Step step = io.gradscope.app.service.StepImport.ofText(r.source());
        if (step == null) {
            report.accept("vs PyTorch: " + r.name() + " is not a captured PyTorch step (gradscope open STEP/ opens a folder that "
                    + "python/gradscope_torch.py wrote)");
            return;
        }
        TorchComparison.Made made;
        try {
            made = TorchComparison.of(step, s.run().program(), s);
        } catch (RuntimeException e) {
            report.accept("Cannot compare with PyTorch: " + RunService.errorOf(e).what());
            return;
        }
        show(made.comparison());
        report.accept(made.comparison().summary());
        if (made.first() >= 0) {
            // find, not select: it opens the folded group the node is in, as Find does
            sweep.find(s.graph().vertex(made.first()).name());
        }
    }

    public void clearComparison() {
        comparison.set(null);
        diffByVertex.clear();
        changed.run();
    }

    private void show(Comparison c) {
        diffByVertex.clear();
        for (RunDiff.Row r : c.rows()) {
            diffByVertex.put(c.currentVertex(r), r);
        }
        comparison.set(c);
        RunDiff.Row top = c.rows().isEmpty() ? null : c.rows().get(0);
        report.accept(c.labelA() + " against " + c.labelB() + ": " + c.rows().size() + " values paired"
                + (top == null ? "" : String.format(Locale.ROOT, "; the largest relative difference is %.3g at %s", top.score(),
                top.title())));
        changed.run();
    }

    private static String name(DType d) {
        return d.toString().toLowerCase(Locale.ROOT);
    }

    /** A new run is on screen ({@code before} was): it becomes the previous run, and the comparison goes. */
    void reset(Sweep before, Sweep now) {
        stop.set(true);
        request++;
        // Another text opened lets go of the run on screen (now null): a run of the old text is no
        // "previous run" of the new one.
        previous = now == null ? null : before != null ? before : previous;
        comparing.set(false);
        diffByVertex.clear();
        comparison.set(null);
    }
}
