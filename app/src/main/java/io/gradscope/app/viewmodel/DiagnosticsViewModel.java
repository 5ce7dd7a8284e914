package io.gradscope.app.viewmodel;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.diagnose.FiniteOrigin;
import io.gradscope.engine.diagnose.Health;
import io.gradscope.engine.diagnose.NodeCheck;
import io.gradscope.engine.diagnose.RunDiff;
import io.gradscope.engine.program.Program;
import io.gradscope.engine.program.ProgramRun;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceGraph;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/**
 * Finding the bad gradient in the run on screen: where a NaN or Inf was born (the producer and
 * the values that only passed it on), every node's VJP checked against central differences, the
 * difference from a second run, and the graph coloured by gradient norm. The engine finds, checks
 * and compares; this keeps the answers by vertex, says how each drawn node looks
 * ({@link #style(String)}) and has the commands. Long work goes off the UI thread.
 */
public final class DiagnosticsViewModel implements Decorator {
    /** What the graph's fill colour shows. */
    public enum Overlay { NONE, GRADIENT_NORM, DIFFERENCE }

    /** How a vertex is marked, strongest first. */
    public enum Mark { PRODUCER, CHECK_FAILED, PROPAGATOR, NONE }

    /**
     * Two runs compared: {@code rows} from {@link RunDiff} (largest difference first), the other run
     * and its graph, which side the run on screen is ({@code currentIsA}: the compared run; else
     * the reference), and the labels of the two sides.
     */
    public record Comparison(String labelA, String labelB, boolean currentIsA, ProgramRun other, TraceGraph otherGraph,
                             List<RunDiff.Row> rows) {
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

    /** "Jump to origin" went to {@code vertex}: its program position and why it is the producer. */
    public static final class Jump {
        private final int vertex;
        private final int line;
        private final int column;
        private final String why;

        Jump(int vertex, int line, int column, String why) {
            this.vertex = vertex;
            this.line = line;
            this.column = column;
            this.why = why;
        }

        public int vertex() {
            return vertex;
        }

        public int line() {
            return line;
        }

        public int column() {
            return column;
        }

        public String why() {
            return why;
        }
    }

    /** A colour scale for the legend: its title, the ends (log10) and the colours from low to high. */
    public record Scale(String title, double lo, double hi, List<String> colours) {
    }

    static final List<String> NORM_COLOURS = List.of("#440154", "#3b528b", "#21918c", "#5ec962", "#fde725");
    static final List<String> DIFF_COLOURS = List.of("#fff5f0", "#fcbba1", "#fb6a4a", "#cb181d", "#67000d");
    static final Map<Mark, Paint> MARK_PAINT = Map.of(
            Mark.PRODUCER, new Paint("#b3261e", "#1d0000", 4.0, "#ffffff", true),
            Mark.CHECK_FAILED, new Paint("#ff8a80", "#d1242f", 3.0, "#1d2433", null),
            Mark.PROPAGATOR, new Paint("#ffe3e0", "#f0857d", 2.0, null, null));
    /** An absorbed infinity's producer and propagators: the blue of its note, not the alarm's red. */
    static final Map<Mark, Paint> ABSORBED_PAINT = Map.of(
            Mark.PRODUCER, new Paint("#9db4d8", "#2e4a7a", 3.0, "#1d2433", true),
            Mark.PROPAGATOR, new Paint("#eef3fb", "#9db4d8", 2.0, null, null));

    private final SweepViewModel sweep;
    private final RunService service;
    private final Consumer<String> report;
    private final Supplier<RunService.Request> shownRequest;
    private final ReadOnlyObjectWrapper<FiniteOrigin.Report> finite = new ReadOnlyObjectWrapper<>(this, "finite");
    private final ReadOnlyBooleanWrapper checking = new ReadOnlyBooleanWrapper(this, "checking");
    private final ReadOnlyBooleanWrapper comparing = new ReadOnlyBooleanWrapper(this, "comparing");
    private final ReadOnlyObjectWrapper<Comparison> comparison = new ReadOnlyObjectWrapper<>(this, "comparison");
    private final ReadOnlyObjectWrapper<Overlay> overlay = new ReadOnlyObjectWrapper<>(this, "overlay", Overlay.NONE);
    private final ReadOnlyIntegerWrapper revision = new ReadOnlyIntegerWrapper(this, "revision");
    private final ReadOnlyObjectWrapper<Jump> jump = new ReadOnlyObjectWrapper<>(this, "jump");
    private final Map<Integer, NodeCheck.Result> checks = new HashMap<>();
    private final Map<Integer, RunDiff.Row> diffByVertex = new HashMap<>();
    private final Set<Integer> propagators = new HashSet<>();
    private int producer = -1;
    /** log10 of each vertex's gradient norm (NaN: none), computed when the overlay is first shown. */
    private double[] logNorms;
    private Sweep previous;
    private int request;

    public DiagnosticsViewModel(SweepViewModel sweep, RunService service, Consumer<String> report,
                                Supplier<RunService.Request> shownRequest) {
        this.sweep = sweep;
        this.service = service;
        this.report = report;
        this.shownRequest = shownRequest;
        sweep.recorded().addListener((o, a, b) -> recorded(a, b));
    }

    /** Where a NaN or Inf was born in the run on screen (null until looked at). */
    public ReadOnlyObjectProperty<FiniteOrigin.Report> finite() {
        return finite.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty checking() {
        return checking.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty comparing() {
        return comparing.getReadOnlyProperty();
    }

    /** The comparison with a second run, or null. */
    public ReadOnlyObjectProperty<Comparison> comparison() {
        return comparison.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Overlay> overlay() {
        return overlay.getReadOnlyProperty();
    }

    /** Changes whenever a node's look or diagnosis changed (the graph restyles, the inspector refreshes). */
    public ReadOnlyIntegerProperty revision() {
        return revision.getReadOnlyProperty();
    }

    /** The last "Jump to origin" (the editor shows its line). */
    public ReadOnlyObjectProperty<Jump> jump() {
        return jump.getReadOnlyProperty();
    }

    // ---- per vertex -------------------------------------------------------------------------------

    /** The producer of the first NaN or Inf, or -1. */
    public int producer() {
        return producer;
    }

    /** How many drawn nodes only pass a non-finite value on (forward or backward). */
    public int propagatorCount() {
        return propagators.size();
    }

    /** What the non-finite value did to the run on screen ("the gradient of 's' holds 6 NaN"), or null. */
    public String harm() {
        Sweep s = sweep.recorded().get();
        return s == null ? null : io.gradscope.engine.diagnose.Harm.of(s.run());
    }

    /** The paint a mark gives a drawn node (null for none). */
    public static Paint markPaint(Mark m) {
        return MARK_PAINT.get(m);
    }

    public Mark mark(int vertex) {
        if (vertex == producer && vertex >= 0) {
            return Mark.PRODUCER;
        }
        NodeCheck.Result c = checks.get(vertex);
        if (c != null && !c.ok()) {
            return Mark.CHECK_FAILED;
        }
        return propagators.contains(vertex) ? Mark.PROPAGATOR : Mark.NONE;
    }

    /** The gradient check of a vertex, or null (not checked, or a leaf). */
    public NodeCheck.Result check(int vertex) {
        return checks.get(vertex);
    }

    /** How many nodes were checked. */
    public int checked() {
        return checks.size();
    }

    /** The comparison row of a vertex, or null. */
    public RunDiff.Row difference(int vertex) {
        return diffByVertex.get(vertex);
    }

    /** The counts of a vertex's value. */
    public Health valueHealth(int vertex) {
        TraceGraph.Vertex v = sweep.vertex(vertex);
        return v == null ? null : Health.of(v.value());
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
            double l = level(v);
            if (!Double.isNaN(l) && (Double.isNaN(level) || l > level)) {
                level = l;
            }
        }
        if (mark != Mark.NONE) {
            boolean absorbed = finite.get() != null && finite.get().absorbed() && ABSORBED_PAINT.containsKey(mark);
            return (absorbed ? ABSORBED_PAINT : MARK_PAINT).get(mark);
        }
        if (Double.isNaN(level)) {
            return null;
        }
        List<String> colours = overlay.get() == Overlay.GRADIENT_NORM ? NORM_COLOURS : DIFF_COLOURS;
        int i = (int) Math.min(colours.size() - 1, Math.floor(level * colours.size()));
        boolean dark = overlay.get() == Overlay.GRADIENT_NORM ? i <= 1 : i >= 3;
        return Paint.fill(colours.get(i), dark ? "#ffffff" : "#1d2433");
    }

    /** The overlay's level of a vertex from 0 to 1 (its place on the legend's log scale), or NaN. */
    public double level(int vertex) {
        Scale s = scale();
        if (s == null) {
            return Double.NaN;
        }
        double x = overlay.get() == Overlay.GRADIENT_NORM ? logNorms[vertex] : logDiff(diffByVertex.get(vertex));
        if (Double.isNaN(x)) {
            return Double.NaN;
        }
        if (x == Double.NEGATIVE_INFINITY) {
            return 0;
        }
        return s.hi() <= s.lo() ? 1 : Math.max(0, Math.min(1, (x - s.lo()) / (s.hi() - s.lo())));
    }

    /** The legend of the overlay shown, or null. */
    public Scale scale() {
        Sweep s = sweep.recorded().get();
        if (s == null || overlay.get() == Overlay.NONE) {
            return null;
        }
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        if (overlay.get() == Overlay.GRADIENT_NORM) {
            norms();
            for (double x : logNorms) {
                if (!Double.isNaN(x) && Double.isFinite(x)) {
                    lo = Math.min(lo, x);
                    hi = Math.max(hi, x);
                }
            }
        } else {
            // The scale spans the differences there are; values equal in both runs sit below its bottom.
            for (RunDiff.Row r : diffByVertex.values()) {
                double x = r.score() > 0 ? logDiff(r) : Double.NaN;
                if (!Double.isNaN(x)) {
                    lo = Math.min(lo, x);
                    hi = Math.max(hi, x);
                }
            }
        }
        if (lo > hi) {
            return null;
        }
        if (overlay.get() == Overlay.DIFFERENCE) {
            // From the coarser dtype's rounding (a relative difference there is no news) to 100%: the
            // colour says how far a value is from being equal, not how it ranks among small differences.
            lo = Math.min(lo, Math.log10(Math.max(rounding(s.run().objective()), rounding(comparison.get().other().objective()))));
            hi = Math.max(hi, 0);
        }
        return overlay.get() == Overlay.GRADIENT_NORM
                ? new Scale("gradient L2 norm (log scale)", lo, hi, NORM_COLOURS)
                : new Scale("relative difference, " + comparison.get().labelA() + " against " + comparison.get().labelB()
                        + " (log scale)", lo, hi, DIFF_COLOURS);
    }

    /** The relative rounding of a run's dtype (its objective's): 2⁻²³ for float32, 2⁻⁵² for float64. */
    private static double rounding(Tensor objective) {
        return objective != null && objective.dtype() == DType.FLOAT32 ? Math.ulp(1f) : Math.ulp(1.0);
    }

    private static double logDiff(RunDiff.Row r) {
        if (r == null) {
            return Double.NaN;
        }
        // Exactly equal values sit at the bottom of the scale (level 0).
        return r.score() > 0 ? Math.log10(r.score()) : Double.NEGATIVE_INFINITY;
    }

    private void norms() {
        if (logNorms != null) {
            return;
        }
        Sweep s = sweep.recorded().get();
        logNorms = new double[s.graph().size()];
        int last = s.steps(Sweep.Mode.BACKWARD) - 1;
        for (int v = 0; v < logNorms.length; v++) {
            Tensor g = s.upstream(last, v);
            if (g == null) {
                logNorms[v] = Double.NaN;
                continue;
            }
            double sum = 0;
            for (double x : g.toDoubleArray()) {
                sum += x * x;
            }
            double norm = Math.sqrt(sum);
            // A gradient that vanished entirely sits at the bottom; a non-finite one at the top.
            logNorms[v] = Double.isNaN(norm) ? Double.POSITIVE_INFINITY : norm == 0 ? Double.NEGATIVE_INFINITY : Math.log10(norm);
        }
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double x : logNorms) {
            if (Double.isFinite(x)) {
                lo = Math.min(lo, x);
                hi = Math.max(hi, x);
            }
        }
        for (int v = 0; v < logNorms.length; v++) {
            if (logNorms[v] == Double.NEGATIVE_INFINITY) {
                logNorms[v] = lo <= hi ? lo : 0;
            } else if (logNorms[v] == Double.POSITIVE_INFINITY) {
                logNorms[v] = lo <= hi ? hi : 0;
            }
        }
    }

    /** log10 of a vertex's gradient norm (NaN: it has none). */
    public double logNorm(int vertex) {
        if (sweep.recorded().get() == null) {
            return Double.NaN;
        }
        norms();
        return vertex < 0 || vertex >= logNorms.length ? Double.NaN : logNorms[vertex];
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

    // ---- commands -----------------------------------------------------------------------------

    public void setOverlay(Overlay o) {
        if (o == Overlay.DIFFERENCE && comparison.get() == null) {
            report.accept("Compare two runs first (Debug → Compare float32 with float64, or with the previous run)");
            return;
        }
        overlay.set(o);
        changed();
    }

    /**
     * Selects the producer of the first NaN or Inf as the current step of its pass, and tells the
     * editor its line ({@link #jump()}); false when every value and gradient is finite.
     */
    public boolean jumpToOrigin() {
        FiniteOrigin.Report r = finite.get();
        if (r == null || r.origin() == null || producer < 0) {
            report.accept(sweep.recorded().get() == null ? "No run yet" : "Every value and gradient is finite");
            return false;
        }
        FiniteOrigin.Finding f = r.origin();
        Sweep.Mode mode = f.phase() == FiniteOrigin.Phase.FORWARD ? Sweep.Mode.FORWARD : Sweep.Mode.BACKWARD;
        sweep.setMode(mode);
        sweep.jumpTo(sweep.recorded().get().stepOf(mode, producer));
        sweep.select(producer);
        jump.set(new Jump(producer, f.source().line(), f.source().column(), f.why()));
        report.accept(originLine(f));
        return true;
    }

    /** The finding in one line: "NaN born in the forward pass at c = log (line 4): WHY". */
    public static String originLine(FiniteOrigin.Finding f) {
        return (f.phase() == FiniteOrigin.Phase.FORWARD ? "Forward pass" : "Backward pass") + ": " + f.title()
                + (f.title().equals(f.op()) ? "" : " = " + f.op()) + (f.source().line() > 0 ? " (line " + f.source().line() + ")" : "")
                + " is where it was born: " + f.why();
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
        var nodes = List.copyOf(s.run().gradients().byNode().keySet());
        report.accept("Checking every node's gradient against central differences…");
        service.submit(() -> NodeCheck.all(nodes, NodeCheck.DEFAULT_SAMPLES), (results, failure) -> {
            if (id != request) {
                return;
            }
            checking.set(false);
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
            changed();
        });
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
        report.accept("Running " + r.name() + " in " + name(other) + " to compare…");
        service.submit(() -> Program.parse(o.file(), o.source()).run(RunService.options(o)), (run, failure) -> {
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

    public void clearComparison() {
        comparison.set(null);
        diffByVertex.clear();
        if (overlay.get() == Overlay.DIFFERENCE) {
            overlay.set(Overlay.NONE);
        }
        changed();
    }

    private void show(Comparison c) {
        diffByVertex.clear();
        for (RunDiff.Row r : c.rows()) {
            diffByVertex.put(c.currentVertex(r), r);
        }
        comparison.set(c);
        overlay.set(Overlay.DIFFERENCE);
        RunDiff.Row top = c.rows().isEmpty() ? null : c.rows().get(0);
        report.accept(c.labelA() + " against " + c.labelB() + ": " + c.rows().size() + " values paired"
                + (top == null ? "" : String.format(Locale.ROOT, "; the largest relative difference is %.3g at %s", top.score(),
                top.title())));
        changed();
    }

    private static String name(DType d) {
        return d.toString().toLowerCase(Locale.ROOT);
    }

    // ---- the run on screen ----------------------------------------------------------------------

    private void recorded(Sweep before, Sweep now) {
        request++;
        previous = before != null ? before : previous;
        checking.set(false);
        comparing.set(false);
        checks.clear();
        diffByVertex.clear();
        comparison.set(null);
        propagators.clear();
        producer = -1;
        logNorms = null;
        finite.set(null);
        if (overlay.get() == Overlay.DIFFERENCE) {
            overlay.set(Overlay.NONE);
        }
        changed();
        if (now == null) {
            return;
        }
        int id = request;
        service.submit(() -> FiniteOrigin.find(now.run().trace()), (r, failure) -> {
            if (id != request || failure != null) {
                return;
            }
            TraceGraph g = now.graph();
            r.forwardPropagators().forEach(n -> addIfDrawn(g, n));
            r.backwardPropagators().forEach(n -> addIfDrawn(g, n));
            producer = r.origin() == null ? -1 : g.indexOf(r.origin().node());
            propagators.remove(producer);
            finite.set(r);
            if (r.origin() != null) {
                report.accept((r.absorbed() ? "Absorbed infinity: " : "Not finite: ") + originLine(r.origin()) + " (Jump to origin: Ctrl+J)");
            }
            changed();
        });
    }

    private void addIfDrawn(TraceGraph g, long id) {
        int v = g.indexOf(id);
        if (v >= 0) {
            propagators.add(v);
        }
    }

    private void changed() {
        revision.set(revision.get() + 1);
    }
}
