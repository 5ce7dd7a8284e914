package io.gradscope.app.viewmodel;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.diagnose.NodeCheck;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Every node's VJP in the run on screen checked against central differences by the engine's
 * {@link NodeCheck} (off the UI thread); this keeps the results by vertex. A part of
 * {@link DiagnosticsViewModel}.
 */
public final class GradientCheckViewModel {
    private final SweepViewModel sweep;
    private final RunService service;
    private final Consumer<String> report;
    private final Runnable changed;
    private final ReadOnlyBooleanWrapper checking = new ReadOnlyBooleanWrapper(this, "checking");
    private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(this, "progress");
    private final Map<Integer, NodeCheck.Result> checks = new HashMap<>();
    private int request;
    /** Set to stop the check going on at its next node (Cancel, or a new run on screen). */
    private AtomicBoolean stop = new AtomicBoolean();

    GradientCheckViewModel(SweepViewModel sweep, RunService service, Consumer<String> report, Runnable changed) {
        this.sweep = sweep;
        this.service = service;
        this.report = report;
        this.changed = changed;
    }

    public ReadOnlyBooleanProperty checking() {
        return checking.getReadOnlyProperty();
    }

    /** How far the check going on is, from 0 to 1. */
    public ReadOnlyDoubleProperty progress() {
        return progress.getReadOnlyProperty();
    }

    /** Stops the check going on before its next node (the nodes checked so far are not shown). */
    public void cancel() {
        if (checking.get()) {
            stop.set(true);
            report.accept("Cancelling the gradient check…");
        }
    }

    /** The gradient check of a vertex, or null (not checked, or a leaf). */
    public NodeCheck.Result check(int vertex) {
        return checks.get(vertex);
    }

    /** Whether a vertex was checked and failed. */
    public boolean failed(int vertex) {
        NodeCheck.Result c = checks.get(vertex);
        return c != null && !c.ok();
    }

    /** How many nodes were checked. */
    public int checked() {
        return checks.size();
    }

    /** Checks every node's VJP at its recorded inputs off the UI thread; failing nodes are marked. */
    public void checkGradients() {
        Sweep s = sweep.recorded().get();
        if (s == null || checking.get()) {
            return;
        }
        if (s.run().gradients() == null) {
            report.accept("Nothing needs a gradient here (no param, no input(..., grad=True))");
            return;
        }
        int id = request;
        checking.set(true);
        progress.set(0);
        AtomicBoolean stopping = new AtomicBoolean();
        stop = stopping;
        var nodes = List.copyOf(s.run().gradients().byNode().keySet());
        report.accept("Checking every node's gradient against central differences…");
        int[] reached = {0, 0};
        NodeCheck.Progress told = (done, total) -> {
            if (stopping.get()) {
                throw new CancellationException("gradient check cancelled");
            }
            service.onUi(() -> {
                if (id == request && checking.get() && !stopping.get()) {
                    reached[0] = done;
                    reached[1] = total;
                    progress.set(total == 0 ? 1 : (double) done / total);
                    report.accept("Checking every node's gradient against central differences: " + done + " of " + total + " nodes…");
                }
            });
        };
        service.submit(() -> NodeCheck.all(nodes, NodeCheck.DEFAULT_SAMPLES, told), (results, failure) -> {
            if (id != request) {
                return;
            }
            checking.set(false);
            if (failure instanceof CancellationException) {
                report.accept("Gradient check cancelled after " + reached[0] + " of " + reached[1] + " nodes");
                return;
            }
            if (failure != null) {
                report.accept("Gradient check failed: " + RunService.errorOf(failure).what());
                return;
            }
            checks.clear();
            int failed = 0;
            int unchecked = 0;
            for (NodeCheck.Result r : results) {
                int v = s.graph().indexOf(r.node().id());
                if (v >= 0) {
                    checks.put(v, r);
                    failed += r.ok() ? 0 : 1;
                    unchecked += r.checkable() ? 0 : 1;
                }
            }
            report.accept(String.format(Locale.ROOT, "Gradient check: %d of %d nodes pass%s%s", checks.size() - failed - unchecked,
                    checks.size(), unchecked == 0 ? "" : ", " + unchecked + " not checkable (non-finite values nearby)",
                    failed == 0 ? " (eps 1e-6, atol 1e-5, rtol 1e-3)" : "; the failing ones are red"));
            changed.run();
        });
    }

    /** A new run is on screen: forgets the last one's checks (and a check still running). */
    void reset() {
        stop.set(true);
        request++;
        checking.set(false);
        checks.clear();
    }
}
