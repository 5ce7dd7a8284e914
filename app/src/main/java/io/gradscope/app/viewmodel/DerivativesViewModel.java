package io.gradscope.app.viewmodel;

import io.gradscope.app.service.RunService;
import io.gradscope.app.service.TangentChoice;
import io.gradscope.app.service.TangentRuns;
import io.gradscope.engine.lang.OpenHint;
import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * Forward mode and Hessian-vector products, as the app shows them: the tangent the runs carry (a
 * leaf and a direction), the tangents the engine recorded for the run on screen, H·v on the leaf,
 * and a small leaf's Hessian computed column by column off the UI thread. It only reads what the
 * engine recorded or returned; state changes only through the commands here.
 */
public final class DerivativesViewModel {
    /** A leaf a tangent can be put on: its name, shape, and whether it has a gradient (then H·v exists). */
    public record LeafInfo(String name, int[] shape, boolean grad) {
        public long numel() {
            return Shapes.numel(shape);
        }

        @Override
        public String toString() {
            return name + " " + Shapes.str(shape);
        }
    }

    private final SweepViewModel sweep;
    private final RunService service;
    private final Runnable rerun;
    private final Consumer<String> report;
    private final Supplier<RunService.Request> shownRequest;
    private final ReadOnlyObjectWrapper<TangentChoice> tangent = new ReadOnlyObjectWrapper<>(this, "tangent");
    private final ReadOnlyObjectWrapper<TangentTrace> tangents = new ReadOnlyObjectWrapper<>(this, "tangents", TangentTrace.NONE);
    private final ObservableList<LeafInfo> leaves = FXCollections.observableArrayList();
    /** One read-only view, kept: a wrapper made per call would listen weakly and be collected with its listeners. */
    private final ObservableList<LeafInfo> leavesView = FXCollections.unmodifiableObservableList(leaves);
    private final ReadOnlyObjectWrapper<Tensor> hvp = new ReadOnlyObjectWrapper<>(this, "hvp");
    private final ReadOnlyStringWrapper hvpLeaf = new ReadOnlyStringWrapper(this, "hvpLeaf");
    private final ReadOnlyIntegerWrapper hvpRequests = new ReadOnlyIntegerWrapper(this, "hvpRequests");
    private final ReadOnlyObjectWrapper<Tensor> hessian = new ReadOnlyObjectWrapper<>(this, "hessian");
    private final ReadOnlyStringWrapper hessianNote = new ReadOnlyStringWrapper(this, "hessianNote", "");
    private final ReadOnlyBooleanWrapper hessianRunning = new ReadOnlyBooleanWrapper(this, "hessianRunning");
    private final ReadOnlyDoubleWrapper hessianProgress = new ReadOnlyDoubleWrapper(this, "hessianProgress");
    private io.gradscope.app.service.Stopper hessianStop = new io.gradscope.app.service.Stopper();
    private int hessianRequest;
    /** After the next run is shown: the leaf to select at the end of the backward sweep (an H·v view). */
    private String pendingLeaf;
    /** An {@code # open: check} line waits for its run to check its gradients. */
    private boolean pendingCheck;

    /**
     * {@code rerun} runs the program again (with the tangent now chosen); {@code report} shows a
     * status line; {@code shownRequest} is the request of the run on screen (null before one).
     */
    public DerivativesViewModel(SweepViewModel sweep, RunService service, Runnable rerun, Consumer<String> report,
                                Supplier<RunService.Request> shownRequest) {
        this.sweep = sweep;
        this.service = service;
        this.rerun = rerun;
        this.report = report;
        this.shownRequest = shownRequest;
        sweep.recorded().addListener((o, a, b) -> recorded(b));
    }

    /** The tangent the next runs carry (null: none). */
    public ReadOnlyObjectProperty<TangentChoice> tangent() {
        return tangent.getReadOnlyProperty();
    }

    /** The tangents the run on screen recorded ({@link TangentTrace#NONE} when it carried none). */
    public ReadOnlyObjectProperty<TangentTrace> tangents() {
        return tangents.getReadOnlyProperty();
    }

    /** The leaves of the run on screen that can take a tangent (not labels). */
    public ObservableList<LeafInfo> leaves() {
        return leavesView;
    }

    /** H·v on the tangent's leaf: the tangent of its gradient at the end of the second sweep (null: no such run). */
    public ReadOnlyObjectProperty<Tensor> hvp() {
        return hvp.getReadOnlyProperty();
    }

    /** The leaf {@link #hvp()} is on (null: none). */
    public ReadOnlyStringProperty hvpLeaf() {
        return hvpLeaf.getReadOnlyProperty();
    }

    /** Counts the requests to show the H·v view (a command or an {@code # open: hvp} line). */
    public ReadOnlyIntegerProperty hvpRequests() {
        return hvpRequests.getReadOnlyProperty();
    }

    /** The Hessian of the objective with respect to {@link #hvpLeaf()} (n × n), or null. */
    public ReadOnlyObjectProperty<Tensor> hessian() {
        return hessian.getReadOnlyProperty();
    }

    /** What the Hessian is, or why there is none. */
    public ReadOnlyStringProperty hessianNote() {
        return hessianNote.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty hessianRunning() {
        return hessianRunning.getReadOnlyProperty();
    }

    public ReadOnlyDoubleProperty hessianProgress() {
        return hessianProgress.getReadOnlyProperty();
    }

    /** The leaf named {@code name} of the run on screen, or null. */
    public LeafInfo leaf(String name) {
        return leaves.stream().filter(l -> l.name().equals(name)).findFirst().orElse(null);
    }

    // ---- what the inspector shows ---------------------------------------------------------------

    /** J·v of a vertex with its JVP rule, or null. */
    public TraceEvent.Tangent valueTangent(int vertex) {
        TraceGraph.Vertex v = sweep.vertex(vertex);
        return v == null ? null : tangents.get().forward(v.id());
    }

    /** The tangent of a vertex's upstream gradient, once the backward cursor has reached it; else null. */
    public TraceEvent.Tangent upstreamTangent(int vertex) {
        TraceGraph.Vertex v = sweep.vertex(vertex);
        if (v == null || sweep.mode().get() != Sweep.Mode.BACKWARD) {
            return null;
        }
        int step = sweep.recorded().get().backwardStepOf(vertex);
        return step < 0 || step > sweep.cursor().get() ? null : tangents.get().backward(v.id());
    }

    // ---- commands -----------------------------------------------------------------------------

    /** Carries {@code choice} (null: none) from now on, and runs again. */
    public void setTangent(TangentChoice choice) {
        if (java.util.Objects.equals(choice, tangent.get())) {
            return;
        }
        tangent.set(choice);
        rerun.run();
    }

    /**
     * The H·v view: runs with the tangent {@code vector} on {@code leaf}, then shows the end of the
     * backward sweep with the leaf selected (its upstream gradient's tangent is H·v).
     */
    public void showHvp(String leaf, String vector) {
        LeafInfo l = leaf(leaf);
        if (l != null && !l.grad()) {
            report.accept("'" + leaf + "' has no gradient, so no H·v: choose a param or an input(..., grad=True)");
            return;
        }
        sweep.setMode(Sweep.Mode.BACKWARD);
        pendingLeaf = leaf;
        hvpRequests.set(hvpRequests.get() + 1);
        TangentChoice c = new TangentChoice(leaf, vector);
        if (c.equals(tangent.get()) && sweep.recorded().get() != null && hvp.get() != null) {
            afterShow();
            return;
        }
        tangent.set(c);
        rerun.run();
    }

    /**
     * A program was opened: its {@code # open:} line (if any) sets the tangent and the pass to start
     * on; without one, the tangent is cleared and the backward pass shown. The caller runs it.
     */
    public void opened(String text) {
        tangent.set(null);
        // The pass belongs to the file: the last one's (Jump to origin went to the forward pass) is not kept.
        sweep.setMode(Sweep.Mode.BACKWARD);
        pendingLeaf = null;
        pendingCheck = false;
        OpenHint hint = OpenHint.of(text);
        if (hint == null) {
            return;
        }
        switch (hint.view()) {
            case "forward" -> {
                tangent.set(TangentChoice.parse(hint.options().get("tangent")));
                sweep.setMode(Sweep.Mode.FORWARD);
            }
            case "backward" -> sweep.setMode(Sweep.Mode.BACKWARD);
            case "check" -> {
                sweep.setMode(Sweep.Mode.BACKWARD);
                pendingCheck = true;
            }
            case "hvp" -> {
                String wrt = hint.options().get("wrt");
                if (wrt != null) {
                    tangent.set(new TangentChoice(wrt, hint.options().getOrDefault("vector", "random")));
                    sweep.setMode(Sweep.Mode.BACKWARD);
                    pendingLeaf = wrt;
                    hvpRequests.set(hvpRequests.get() + 1);
                }
            }
            default -> report.accept("Unknown view '" + hint.view() + "' in the # open: line (" + String.join(", ", OpenHint.VIEWS) + ")");
        }
    }

    /**
     * A run came back carrying {@code used} (null: none); returns a notice for the status line when
     * the chosen leaf is gone (else "").
     */
    public String ran(TangentChoice used) {
        TangentChoice asked = tangent.get();
        tangent.set(used);
        if (asked != null && used == null) {
            pendingLeaf = null;
            return "No leaf '" + asked.leaf() + "' any more: ran without a tangent. ";
        }
        return "";
    }

    /** Whether the program opened asked ({@code # open: check}) for its gradients to be checked; asks once. */
    public boolean takePendingCheck() {
        boolean c = pendingCheck;
        pendingCheck = false;
        return c;
    }

    /** Once a run is on screen: an H·v view goes to the end of the backward sweep with its leaf selected. */
    public void afterShow() {
        String leaf = pendingLeaf;
        pendingLeaf = null;
        if (leaf == null || sweep.recorded().get() == null) {
            return;
        }
        int v = vertexOf(leaf);
        sweep.setMode(Sweep.Mode.BACKWARD);
        sweep.toEnd();
        sweep.select(v);
    }

    /** Computes the Hessian with respect to the H·v leaf off the UI thread, one H·v per element. */
    public void computeHessian() {
        String leaf = hvpLeaf.get();
        RunService.Request request = shownRequest.get();
        Sweep shown = sweep.recorded().get();
        LeafInfo info = leaf == null ? null : leaf(leaf);
        if (info == null || request == null || shown == null) {
            hessianNote.set("Choose a leaf with a gradient and compute H·v first.");
            return;
        }
        if (info.numel() > TangentRuns.HESSIAN_LIMIT) {
            hessianNote.set("'" + leaf + "' has " + info.numel() + " elements: the Hessian is shown for at most "
                    + TangentRuns.HESSIAN_LIMIT + " (H·v works for any size).");
            return;
        }
        cancelHessian();
        int id = ++hessianRequest;
        io.gradscope.app.service.Stopper stop = new io.gradscope.app.service.Stopper();
        hessianStop = stop;
        hessianRunning.set(true);
        hessianProgress.set(0);
        hessianNote.set("Computing the Hessian of '" + leaf + "': " + info.numel() + " Hessian-vector products…");
        service.submit(stop.around(() -> TangentRuns.hessian(shown.run().program(), RunService.options(request),
                leaf, (done, of) -> {
                    service.onUi(() -> {
                        if (id == hessianRequest) {
                            hessianProgress.set((double) done / of);
                        }
                    });
                    return !stop.stopped();
                })), (h, failure) -> {
                    if (id != hessianRequest) {
                        return;
                    }
                    hessianRunning.set(false);
                    if (failure != null) {
                        hessianNote.set("No Hessian: " + RunService.errorOf(failure).what());
                    } else if (h != null) {
                        hessian.set(h);
                        hessianNote.set("∂²L/∂" + leaf + "ᵢ∂" + leaf + "ⱼ, " + info.numel() + " × " + info.numel()
                                + " (row i, column j = element i of H·eⱼ; elements in row-major order)");
                    }
                });
    }

    public void cancelHessian() {
        if (hessianRunning.get()) {
            hessianStop.stop();
            hessianRequest++;
            hessianRunning.set(false);
            hessianNote.set("Hessian cancelled");
        }
    }

    // ---- the run on screen ----------------------------------------------------------------------

    private void recorded(Sweep s) {
        cancelHessian();
        hessian.set(null);
        hessianNote.set("");
        leaves.clear();
        if (s == null) {
            tangents.set(TangentTrace.NONE);
            hvpLeaf.set(null);
            hvp.set(null);
            return;
        }
        // One change for all of them: a listener that rebuilds on each change would otherwise rebuild once a leaf.
        java.util.List<LeafInfo> all = new java.util.ArrayList<>();
        for (Leaf l : s.run().leaves()) {
            if (l.kind() != Leaf.Kind.LABELS) {
                all.add(new LeafInfo(l.name(), l.shape(), l.grad()));
            }
        }
        leaves.setAll(all);
        tangents.set(TangentTrace.of(s.run().trace()));
        TangentChoice t = tangent.get();
        LeafInfo leaf = t == null ? null : leaf(t.leaf());
        int at = leaf == null || !leaf.grad() ? -1 : vertexOf(s, t.leaf());
        TraceEvent.Tangent atLeaf = at < 0 ? null : tangents.get().backward(s.graph().vertex(at).id());
        hvpLeaf.set(atLeaf == null ? null : t.leaf());
        hvp.set(atLeaf == null ? null : atLeaf.tangent());
    }

    private int vertexOf(String name) {
        return vertexOf(sweep.recorded().get(), name);
    }

    private static int vertexOf(Sweep s, String name) {
        List<TraceGraph.Vertex> vs = s.graph().vertices();
        for (TraceGraph.Vertex v : vs) {
            if (name.equals(v.name())) {
                return v.index();
            }
        }
        return -1;
    }
}
