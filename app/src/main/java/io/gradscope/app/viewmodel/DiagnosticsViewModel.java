package io.gradscope.app.viewmodel;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.diagnose.FiniteOrigin;
import io.gradscope.engine.diagnose.Health;
import io.gradscope.engine.diagnose.NodeCheck;
import io.gradscope.engine.diagnose.RunDiff;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;

/**
 * Finding the bad gradient in the run on screen, from four features, each its own view-model:
 * where a NaN or Inf was born ({@link FiniteOriginViewModel}), every node's VJP checked against
 * central differences ({@link GradientCheckViewModel}), the difference from a second run
 * ({@link ComparisonViewModel}) and the graph coloured by gradient norm or by that difference
 * ({@link OverlayViewModel}). This one resets them when a new run is shown, says how each drawn
 * node looks from all four ({@link #node(String)}: it is the graph's {@link Decorator}), and keeps
 * the commands the view binds to.
 */
public final class DiagnosticsViewModel implements Decorator {
    /** How a vertex is marked, strongest first. */
    public enum Mark { PRODUCER, CHECK_FAILED, PROPAGATOR, NONE }

    static final Map<Mark, Paint> MARK_PAINT = Map.of(
            Mark.PRODUCER, new Paint("#b3261e", "#1d0000", 4.0, "#ffffff", true),
            Mark.CHECK_FAILED, new Paint("#ff8a80", "#d1242f", 3.0, "#1d2433", null),
            Mark.PROPAGATOR, new Paint("#ffe3e0", "#f0857d", 2.0, null, null));
    /** An absorbed infinity's producer and propagators: the blue of its note, not the alarm's red. */
    static final Map<Mark, Paint> ABSORBED_PAINT = Map.of(
            Mark.PRODUCER, new Paint("#9db4d8", "#2e4a7a", 3.0, "#1d2433", true),
            Mark.PROPAGATOR, new Paint("#eef3fb", "#9db4d8", 2.0, null, null));

    private final SweepViewModel sweep;
    private final ReadOnlyIntegerWrapper revision = new ReadOnlyIntegerWrapper(this, "revision");
    private final FiniteOriginViewModel finite;
    private final GradientCheckViewModel checks;
    private final ComparisonViewModel comparisons;
    private final OverlayViewModel overlays;

    public DiagnosticsViewModel(SweepViewModel sweep, RunService service, Consumer<String> report,
                                Supplier<RunService.Request> shownRequest) {
        this.sweep = sweep;
        this.finite = new FiniteOriginViewModel(sweep, service, report, this::changed);
        this.checks = new GradientCheckViewModel(sweep, service, report, this::changed);
        this.comparisons = new ComparisonViewModel(sweep, service, report, shownRequest, this::changed);
        this.overlays = new OverlayViewModel(sweep, comparisons, report, this::changed);
        sweep.recorded().addListener((o, a, b) -> recorded(a, b));
    }

    // ---- the four features --------------------------------------------------------------------

    public FiniteOriginViewModel finiteOrigin() {
        return finite;
    }

    public GradientCheckViewModel gradientChecks() {
        return checks;
    }

    public ComparisonViewModel comparisons() {
        return comparisons;
    }

    public OverlayViewModel overlays() {
        return overlays;
    }

    /** Changes whenever a node's look or diagnosis changed (the graph restyles, the inspector refreshes). */
    public ReadOnlyIntegerProperty revision() {
        return revision.getReadOnlyProperty();
    }

    // ---- per vertex -------------------------------------------------------------------------------

    /** The paint a mark gives a drawn node (null for none). */
    public static Paint markPaint(Mark m) {
        return MARK_PAINT.get(m);
    }

    public Mark mark(int vertex) {
        if (vertex == finite.producer() && vertex >= 0) {
            return Mark.PRODUCER;
        }
        if (checks.failed(vertex)) {
            return Mark.CHECK_FAILED;
        }
        return finite.isPropagator(vertex) ? Mark.PROPAGATOR : Mark.NONE;
    }

    /** The counts of a vertex's value. */
    public Health valueHealth(int vertex) {
        TraceGraph.Vertex v = sweep.vertex(vertex);
        return v == null || io.gradscope.engine.trace.NotRetained.is(v.value()) ? null : Health.of(v.value());
    }

    /**
     * The complete upstream gradient of a vertex: in the backward pass as of the cursor (null before
     * it is reached); in the forward pass the one the backward pass recorded.
     */
    public Tensor gradient(int vertex) {
        Sweep s = sweep.recorded().get();
        if (s == null) {
            return null;
        }
        return sweep.mode().get() == Sweep.Mode.BACKWARD ? sweep.upstream(vertex) : s.upstream(s.steps(Sweep.Mode.BACKWARD) - 1, vertex);
    }

    /** The paint a drawn node ("v12" or "g:path") gets: its mark's, else its fill by the overlay; null for none. */
    @Override
    public Paint node(String key) {
        if (key == null || sweep.recorded().get() == null) {
            return null;
        }
        Mark mark = Mark.NONE;
        double level = Double.NaN;
        for (int v : members(key)) {
            Mark m = mark(v);
            if (m.ordinal() < mark.ordinal()) {
                mark = m;
            }
            double l = overlays.level(v);
            if (!Double.isNaN(l) && (Double.isNaN(level) || l > level)) {
                level = l;
            }
        }
        if (mark != Mark.NONE) {
            boolean absorbed = finite.absorbed() && ABSORBED_PAINT.containsKey(mark);
            return (absorbed ? ABSORBED_PAINT : MARK_PAINT).get(mark);
        }
        return Double.isNaN(level) ? null : overlays.fill(level);
    }

    private List<Integer> members(String key) {
        if (key.startsWith("v")) {
            return List.of(Integer.parseInt(key.substring(1)));
        }
        List<Integer> out = new java.util.ArrayList<>();
        int n = sweep.recorded().get().graph().size();
        for (int v = 0; v < n; v++) {
            if (key.equals(sweep.keyOf(v))) {
                out.add(v);
            }
        }
        return out;
    }

    // ---- the features' state and commands, as the view binds them ---------------------------------

    /** Where a NaN or Inf was born in the run on screen (null until looked at). */
    public ReadOnlyObjectProperty<FiniteOrigin.Report> finite() {
        return finite.finite();
    }

    /** The last "Jump to origin" (the editor shows its line). */
    public ReadOnlyObjectProperty<FiniteOriginViewModel.Jump> jump() {
        return finite.jump();
    }

    /** The producer of the first NaN or Inf, or -1. */
    public int producer() {
        return finite.producer();
    }

    /** How many drawn nodes only pass a non-finite value on (forward or backward). */
    public int propagatorCount() {
        return finite.propagatorCount();
    }

    /** What the non-finite value did to the run on screen ("the gradient of 's' holds 6 NaN"), or null. */
    public String harm() {
        return finite.harm();
    }

    /** See {@link FiniteOriginViewModel#jumpToOrigin()}. */
    public boolean jumpToOrigin() {
        return finite.jumpToOrigin();
    }

    /** The finding in one line: "NaN born in the forward pass at c = log (line 4): WHY". */
    public static String originLine(FiniteOrigin.Finding f) {
        return FiniteOriginViewModel.originLine(f);
    }

    public ReadOnlyBooleanProperty checking() {
        return checks.checking();
    }

    /** How far the gradient check going on is, from 0 to 1. */
    public javafx.beans.property.ReadOnlyDoubleProperty checkProgress() {
        return checks.progress();
    }

    /** The gradient check of a vertex, or null (not checked, or a leaf). */
    public NodeCheck.Result check(int vertex) {
        return checks.check(vertex);
    }

    /** How many nodes were checked. */
    public int checked() {
        return checks.checked();
    }

    /** Checks every node's VJP at its recorded inputs off the UI thread; failing nodes are marked. */
    public void checkGradients() {
        checks.checkGradients();
    }

    /** Stops the gradient check going on at its next node, and the second run of a comparison at its next statement. */
    public void cancelCheck() {
        checks.cancel();
        comparisons.cancel();
    }

    public ReadOnlyBooleanProperty comparing() {
        return comparisons.comparing();
    }

    /** The comparison with a second run, or null. */
    public ReadOnlyObjectProperty<ComparisonViewModel.Comparison> comparison() {
        return comparisons.comparison();
    }

    /** The comparison row of a vertex, or null. */
    public RunDiff.Row difference(int vertex) {
        return comparisons.difference(vertex);
    }

    /** Runs the program on screen in the other float dtype and compares: float32 against float64. */
    public void compareDTypes() {
        comparisons.compareDTypes();
    }

    /** Compares the run on screen with the one before it (before an edit, another dtype or device). */
    public void compareWithPrevious() {
        comparisons.compareWithPrevious();
    }

    /** Sets PyTorch's own step beside the run on screen (a captured step): see {@link ComparisonViewModel#compareWithPyTorch}. */
    public void compareWithPyTorch() {
        comparisons.compareWithPyTorch();
    }

    public void clearComparison() {
        comparisons.clearComparison();
    }

    public ReadOnlyObjectProperty<OverlayViewModel.Overlay> overlay() {
        return overlays.overlay();
    }

    public void setOverlay(OverlayViewModel.Overlay o) {
        overlays.setOverlay(o);
    }

    /** The overlay's level of a vertex from 0 to 1 (its place on the legend's log scale), or NaN. */
    public double level(int vertex) {
        return overlays.level(vertex);
    }

    /** The legend of the overlay shown, or null. */
    public OverlayViewModel.Scale scale() {
        return overlays.scale();
    }

    /** log10 of a vertex's gradient norm (NaN: it has none). */
    public double logNorm(int vertex) {
        return overlays.logNorm(vertex);
    }

    // ---- the run on screen ----------------------------------------------------------------------

    private void recorded(Sweep before, Sweep now) {
        checks.reset();
        comparisons.reset(before, now);
        finite.reset();
        overlays.reset();
        changed();
        finite.find(now);
    }

    private void changed() {
        revision.set(revision.get() + 1);
    }
}
