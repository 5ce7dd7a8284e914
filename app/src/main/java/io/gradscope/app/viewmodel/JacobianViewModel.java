package io.gradscope.app.viewmodel;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.jacobian.Coloring;
import io.gradscope.engine.jacobian.RecordedRun;
import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.trace.TraceGraph;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Jacobian view of the run on screen: which vertex is differentiated by which leaf, how the
 * pattern is found and colored, the result the engine computed off the UI thread, and the nonzero
 * picked in the spy plot, whose paths it lights in the graph (it is a {@link Decorator}). State
 * changes only through the commands here. It is long (about 600 lines) for one reason: every command
 * here reads and bumps the same request counter and stop flag, so that a new run, a new choice or
 * Cancel drops the computation in flight; what a run offers is read apart ({@link JacobianChoices}).
 */
public final class JacobianViewModel implements Decorator {
    /** A vertex whose Jacobian can be shown: its index and how the chooser names it. */
    public record Output(int vertex, String label) {
        @Override
        public String toString() {
            return label;
        }
    }

    /**
     * A picked nonzero: row {@code i} (element of the output), column {@code j} (element of the leaf),
     * its value, and the vertices its paths pass through, in creation order.
     */
    public record Pick(int i, int j, double value, List<Integer> vertices, String via) {
    }

    /** The paint of a vertex on a picked nonzero's paths, and its edges' colour. */
    public static final Paint PATH_PAINT = new Paint("#fde3ee", "#c2185b", 3.0, null, null);
    public static final String PATH_EDGE = "#c2185b";

    private final SweepViewModel sweep;
    private final RunService service;
    private final Consumer<String> report;
    private final Supplier<RunService.Request> shownRequest;
    private final ObservableList<Output> outputs = FXCollections.observableArrayList();
    private final ObservableList<Output> outputsView = FXCollections.unmodifiableObservableList(outputs);
    private final ObservableList<String> leaves = FXCollections.observableArrayList();
    private final ObservableList<String> leavesView = FXCollections.unmodifiableObservableList(leaves);
    private final ObservableList<String> groups = FXCollections.observableArrayList();
    /** Each group's ends (output, input) for the run shown, where it has them ({@link #groupEnds}). */
    private Map<String, int[]> ends = Map.of();
    private final ObservableList<String> groupsView = FXCollections.unmodifiableObservableList(groups);
    private final ReadOnlyIntegerWrapper output = new ReadOnlyIntegerWrapper(this, "output", -1);
    private final ReadOnlyStringWrapper leaf = new ReadOnlyStringWrapper(this, "leaf");
    private final ReadOnlyObjectWrapper<Sparsity> sparsity = new ReadOnlyObjectWrapper<>(this, "sparsity", Sparsity.GLOBAL);
    private final ReadOnlyObjectWrapper<Coloring.Kind> kind = new ReadOnlyObjectWrapper<>(this, "kind");
    private final ReadOnlyStringWrapper order = new ReadOnlyStringWrapper(this, "order", "best");
    private final ReadOnlyObjectWrapper<JacobianResult> result = new ReadOnlyObjectWrapper<>(this, "result");
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "running");
    private final javafx.beans.property.ReadOnlyDoubleWrapper progress = new javafx.beans.property.ReadOnlyDoubleWrapper(this, "progress", -1);
    private final ReadOnlyStringWrapper note = new ReadOnlyStringWrapper(this, "note", "");
    private final ReadOnlyObjectWrapper<Pick> picked = new ReadOnlyObjectWrapper<>(this, "picked");
    private final ReadOnlyStringWrapper why = new ReadOnlyStringWrapper(this, "why", "");
    /** Stops the search of why the last picked entry is nonzero (a new pick, or none). */
    private java.util.concurrent.atomic.AtomicBoolean whyStop = new java.util.concurrent.atomic.AtomicBoolean();
    private final ReadOnlyIntegerWrapper requests = new ReadOnlyIntegerWrapper(this, "requests");
    private final ReadOnlyIntegerWrapper revision = new ReadOnlyIntegerWrapper(this, "revision");
    private final ReadOnlyObjectWrapper<io.gradscope.engine.jacobian.JacobianEstimate> aboveLimit =
            new ReadOnlyObjectWrapper<>(this, "aboveLimit");
    /** The stop flag of the computation running, if any (set by {@link #cancel}, a new computation or another run). */
    private java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    private Set<Integer> lit = Set.of();
    private Set<TraceGraph.Edge> litEdges = Set.of();
    private int request;

    public JacobianViewModel(SweepViewModel sweep, RunService service, Consumer<String> report,
                             Supplier<RunService.Request> shownRequest) {
        this.sweep = sweep;
        this.service = service;
        this.report = report;
        this.shownRequest = shownRequest;
        sweep.recorded().addListener((o, a, b) -> recorded(b));
    }

    /** The vertices of the run on screen whose Jacobian can be shown (ops and named values with a gradient). */
    public ObservableList<Output> outputs() {
        return outputsView;
    }

    /**
     * What a Jacobian can be taken with respect to: the leaves of the run on screen with a gradient,
     * then its named values with one (a value in the middle is held as an independent input: the
     * Jacobian of the subgraph between it and the output).
     */
    public ObservableList<String> leaves() {
        return leavesView;
    }

    /**
     * The groups whose subgraph has one output and a computed value with a gradient flowing into it
     * ({@link #setGroup}); a group fed only by leaves is its output with respect to a leaf, the
     * w.r.t. chooser's job.
     */
    public ObservableList<String> groups() {
        return groupsView;
    }

    /** The vertex differentiated (-1: none chosen). */
    public ReadOnlyIntegerProperty output() {
        return output.getReadOnlyProperty();
    }

    /** The leaf it is differentiated by (null: none). */
    public ReadOnlyStringProperty leaf() {
        return leaf.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Sparsity> sparsity() {
        return sparsity.getReadOnlyProperty();
    }

    /** Columns or rows; null: whichever needs fewer colors. */
    public ReadOnlyObjectProperty<Coloring.Kind> kind() {
        return kind.getReadOnlyProperty();
    }

    /** The vertex order ("best", or a {@link io.gradscope.engine.jacobian.VertexOrder} flag). */
    public ReadOnlyStringProperty order() {
        return order.getReadOnlyProperty();
    }

    /** The Jacobian computed for the choices (null: none yet, or they changed since). */
    public ReadOnlyObjectProperty<JacobianResult> result() {
        return result.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty running() {
        return running.getReadOnlyProperty();
    }

    /** The products taken of all while evaluating, from 0 to 1; -1 while the pattern is found (no total yet). */
    public javafx.beans.property.ReadOnlyDoubleProperty progress() {
        return progress.getReadOnlyProperty();
    }

    /** What is being computed, or why nothing is shown. */
    public ReadOnlyStringProperty note() {
        return note.getReadOnlyProperty();
    }

    /** The nonzero picked in the spy plot (null: none). */
    public ReadOnlyObjectProperty<Pick> picked() {
        return picked.getReadOnlyProperty();
    }

    /** Counts the requests to show the Jacobian view (a node's "Show Jacobian"). */
    public ReadOnlyIntegerProperty requests() {
        return requests.getReadOnlyProperty();
    }

    @Override
    public ReadOnlyIntegerProperty revision() {
        return revision.getReadOnlyProperty();
    }

    /** The label the chooser shows for a vertex ("h = relu", "matmul #5"). */
    public String label(int vertex) {
        return outputs.stream().filter(o -> o.vertex() == vertex).map(Output::label).findFirst().orElse("#" + vertex);
    }

    // ---- commands -----------------------------------------------------------------------------

    /** Differentiates {@code vertex} (keeping the leaf if the vertex depends on it), and computes. */
    public void setOutput(int vertex) {
        if (vertex == output.get() && result.get() != null) {
            return;
        }
        choose(vertex);
        compute();
    }

    /**
     * The output and the leaf for a node chosen: a value is differentiated by a leaf it depends on
     * (the one chosen, if it does). A leaf, which depends on none, is taken as the w.r.t., of the last
     * value computed from it (z selected in softmax.grad: ∂p/∂z); the tab said nothing and drew nothing.
     */
    private void choose(int vertex) {
        List<String> upstream = leavesUpstreamOf(vertex);
        String name = title(vertex);
        if (upstream.isEmpty() && leaves.contains(name)) {
            int out = JacobianChoices.lastComputedFrom(sweep.recorded().get().graph(), outputs, vertex);
            if (out >= 0) {
                output.set(out);
                leaf.set(name);
                return;
            }
        }
        output.set(vertex);
        String keep = leaf.get();
        if (keep == null || !upstream.contains(keep)) {
            leaf.set(upstream.isEmpty() ? keep : upstream.get(0));
        }
    }

    /**
     * The Jacobian of a group's subgraph: the value the group hands on (its one output) with respect
     * to what flows into it (the first value computed before the group that it reads).
     */
    public void setGroup(String name) {
        int[] io = groupEnds(name);
        if (io == null) {
            report.accept("Group '" + name + "' has no single output with a computed value flowing into it");
            return;
        }
        output.set(io[0]);
        leaf.set(sweep.recorded().get().graph().vertex(io[1]).name());
        compute();
    }

    /** The group whose subgraph the current choices are, or null. */
    public String currentGroup() {
        for (String g : groups) {
            int[] io = groupEnds(g);
            if (io != null && io[0] == output.get() && title(io[1]).equals(leaf.get())) {
                return g;
            }
        }
        return null;
    }

    /** A group's output vertex and input vertex, or null when it has not one output or no input with a gradient. */
    private int[] groupEnds(String name) {
        return ends.get(name);
    }

    public void setLeaf(String name) {
        if (name != null && !name.equals(leaf.get())) {
            leaf.set(name);
            compute();
        }
    }

    public void setSparsity(Sparsity s) {
        if (s != null && s != sparsity.get()) {
            sparsity.set(s);
            compute();
        }
    }

    /** Colors columns or rows (null: whichever needs fewer colors). */
    public void setKind(Coloring.Kind k) {
        if (k != kind.get()) {
            kind.set(k);
            compute();
        }
    }

    public void setOrder(String o) {
        if (o != null && !o.equals(order.get())) {
            order.set(o);
            compute();
        }
    }

    /** A node's "Show Jacobian": its Jacobian with respect to the chosen leaf, in the Jacobian view. */
    public void show(int vertex) {
        requests.set(requests.get() + 1);
        if (isOutput(vertex)) {
            setOutput(vertex);
        } else {
            report.accept("'" + title(vertex) + "' has no Jacobian: it does not depend on a leaf with a gradient");
        }
    }

    /** Computes now, unless it was computed for these choices (the view was just shown). */
    public void computeIfNeeded() {
        if (result.get() == null && !running.get()) {
            if (output.get() < 0 && !outputs.isEmpty()) {
                choose(defaultOutput());
            }
            compute();
        }
    }

    /**
     * The most seconds a Jacobian may be estimated to take and still start by itself: the system
     * property {@code gradscope.jacobian.maxSeconds}, else 10. Above it the tab shows the estimate and
     * waits for {@link #computeAnyway}.
     */
    public static double limitSeconds() {
        return Double.parseDouble(System.getProperty("gradscope.jacobian.maxSeconds", "10"));
    }

    /** The estimate of the Jacobian asked for when it is above {@link #limitSeconds} and was not started (null otherwise). */
    public ReadOnlyObjectProperty<io.gradscope.engine.jacobian.JacobianEstimate> aboveLimit() {
        return aboveLimit.getReadOnlyProperty();
    }

    /** Computes the Jacobian for the current choices off the UI thread, when its estimate is below the limit. */
    public void compute() {
        compute(limitSeconds());
    }

    /** Computes the Jacobian for the current choices whatever its estimate. */
    public void computeAnyway() {
        compute(Double.POSITIVE_INFINITY, RecordedRun.Part.ALL);
    }

    /** Finds the pattern (and its coloring) of the Jacobian for the current choices without evaluating it: no products. */
    public void computePatternOnly() {
        compute(Double.POSITIVE_INFINITY, RecordedRun.Part.PATTERN);
    }

    /** Evaluates only the first {@link #blockSize} rows ({@code rows}) or columns: a block whose products fit the limit. */
    public void computeBlock(boolean rows) {
        int n = blockSize(rows);
        compute(Double.POSITIVE_INFINITY, rows ? RecordedRun.Part.rows(0, n) : RecordedRun.Part.columns(0, n));
    }

    /**
     * How many rows ({@code rows}) or columns of the Jacobian above the limit ({@link #aboveLimit})
     * can be evaluated within it: a block of n rows takes at most n products, each about three
     * forwards; at least 1, at most all of them (0 when nothing is above the limit).
     */
    public int blockSize(boolean rows) {
        io.gradscope.engine.jacobian.JacobianEstimate e = aboveLimit.get();
        if (e == null) {
            return 0;
        }
        double each = 3.0 * e.forwardFlops() / io.gradscope.engine.jacobian.JacobianEstimate.FLOPS_PER_SECOND;
        double fit = each <= 0 ? Double.MAX_VALUE : Math.floor(limitSeconds() / each);
        return (int) Math.max(1, Math.min(rows ? e.rows() : e.cols(), fit));
    }

    /**
     * Stops the computation running (the pattern between two rows' sets, the evaluation between two
     * products): the panel keeps what it showed before it started.
     */
    public void cancel() {
        if (!running.get()) {
            return;
        }
        stop.set(true);
        request++;
        running.set(false);
        result.set(previous);
        note.set("Cancelled.");
    }

    private JacobianResult previous;

    /** What of the Jacobian shown was evaluated, when not all of it. */
    private static String partNote(RecordedRun.Part part, JacobianResult r) {
        if (!part.evaluate()) {
            return "Pattern only: not evaluated (no products).";
        }
        if (part.rowsTo() < Integer.MAX_VALUE) {
            return "Rows 0 to " + (Math.min(part.rowsTo(), r.rows()) - 1) + " of " + r.rows() + " evaluated (a block within the limit).";
        }
        if (part.colsTo() < Integer.MAX_VALUE) {
            return "Columns 0 to " + (Math.min(part.colsTo(), r.cols()) - 1) + " of " + r.cols() + " evaluated (a block within the limit).";
        }
        return "";
    }

    private void compute(double maxSeconds) {
        compute(maxSeconds, RecordedRun.Part.ALL);
    }

    private void compute(double maxSeconds, RecordedRun.Part part) {
        stop.set(true);
        clearPick();
        previous = result.get();
        if (part == RecordedRun.Part.ALL) {
            aboveLimit.set(null); // a part keeps the estimate (and the choices) in view
        }
        result.set(null);
        RunService.Request shown = shownRequest.get();
        Sweep s = sweep.recorded().get();
        if (shown == null || s == null || output.get() < 0 || leaf.get() == null) {
            note.set(s == null ? "Run a program first." : "Choose a value and a leaf with a gradient.");
            return;
        }
        int id = ++request;
        JacobianResult.Request r = new JacobianResult.Request(output.get(), leaf.get(), sparsity.get(), kind.get(), order.get(), part);
        TraceGraph graph = s.graph();
        io.gradscope.engine.run.ProgramRun run = s.run();
        running.set(true);
        java.util.concurrent.atomic.AtomicBoolean mine = new java.util.concurrent.atomic.AtomicBoolean();
        stop = mine;
        note.set("Computing the Jacobian of " + title(r.of()) + " with respect to " + r.wrt() + "…");
        progress.set(-1);
        io.gradscope.app.service.Fraction told = new io.gradscope.app.service.Fraction(service, (f, done, of) -> {
            if (id == request) {
                progress.set(f);
                note.set("Evaluating the Jacobian of " + title(r.of()) + " with respect to " + r.wrt() + ": " + done + " of " + of
                        + " products…");
            }
        });
        service.submit(() -> JacobianResult.compute(run, graph, r, mine::get, maxSeconds, told::done),
                (res, failure) -> {
                    if (id != request) {
                        return;
                    }
                    running.set(false);
                    if (failure instanceof JacobianResult.AboveLimit a) {
                        result.set(previous);
                        aboveLimit.set(a.estimate());
                        note.set("Not started: the Jacobian of " + title(r.of()) + " with respect to " + r.wrt() + " is "
                                + a.estimate().summary() + ", above the limit of " + io.gradscope.engine.jacobian.JacobianEstimate.time(maxSeconds)
                                + ". Compute anyway, find the pattern only, evaluate a block of rows or columns within the limit, or choose a "
                                + "smaller w.r.t.");
                        return;
                    }
                    if (failure != null) {
                        note.set("No Jacobian: " + RunService.errorOf(failure).what());
                        return;
                    }
                    result.set(res);
                    note.set(partNote(part, res));
                });
    }

    /**
     * Why the picked entry is nonzero, found off the UI thread ({@link io.gradscope.engine.jacobian.EntryPaths}):
     * its paths (how many, globally and at these values, and the shortest), or for an entry only the
     * global pattern has, where each path is cut at these values; "" when nothing is picked.
     */
    public javafx.beans.property.ReadOnlyStringProperty why() {
        return why.getReadOnlyProperty();
    }

    private void findWhy(JacobianResult r, int i, int j) {
        whyStop.set(true);
        java.util.concurrent.atomic.AtomicBoolean mine = new java.util.concurrent.atomic.AtomicBoolean();
        whyStop = mine;
        io.gradscope.engine.run.ProgramRun run = sweep.recorded().get().run();
        why.set("Finding why it is nonzero…");
        service.submit(() -> r.why(run, i, j, mine::get), (w, failure) -> {
            if (mine.get()) {
                return; // another pick, or none
            }
            why.set(failure != null ? "Why: " + RunService.errorOf(failure).what() : "Why: " + w.describe());
        });
    }

    /** Picks the nonzero (i, j): its value, and its paths lit in the graph; false (nothing picked) for a zero. */
    public boolean pick(int i, int j) {
        JacobianResult r = result.get();
        if (r == null || i < 0 || j < 0 || i >= r.rows() || j >= r.cols() || !r.pattern().contains(i, j)) {
            return false;
        }
        SortedSet<Integer> path = r.path(sweep.recorded().get().graph(), i, j);
        lit = Set.copyOf(path);
        litEdges = Set.copyOf(r.edges().stream().filter(e -> path.contains(e.from()) && path.contains(e.to())).toList());
        StringBuilder via = new StringBuilder();
        for (int v : path) {
            via.append(via.length() == 0 ? "" : " → ").append(step(v));
        }
        picked.set(new Pick(i, j, r.values().get(i, j), List.copyOf(path), via.toString()));
        findWhy(r, i, j);
        changed();
        return true;
    }

    public void clearPick() {
        whyStop.set(true);
        why.set("");
        if (picked.get() != null || !lit.isEmpty()) {
            picked.set(null);
            lit = Set.of();
            litEdges = Set.of();
            changed();
        }
    }

    // ---- the decorator ------------------------------------------------------------------------

    @Override
    public Paint node(String key) {
        if (lit.isEmpty() || key == null) {
            return null;
        }
        if (key.startsWith("v")) {
            return lit.contains(Integer.parseInt(key.substring(1))) ? PATH_PAINT : null;
        }
        for (int v : lit) {
            if (key.equals(sweep.keyOf(v))) {
                return PATH_PAINT;
            }
        }
        return null;
    }

    @Override
    public String edge(TraceGraph.Edge e) {
        return litEdges.contains(e) ? PATH_EDGE : null;
    }

    /** Whether the picked nonzero's paths pass through vertex {@code v}. */
    public boolean isLit(int v) {
        return lit.contains(v);
    }

    // ---- the run on screen ----------------------------------------------------------------------

    private void recorded(Sweep s) {
        stop.set(true); // another run or program: the old one's Jacobian is not wanted
        aboveLimit.set(null);
        request++;
        running.set(false);
        clearPick();
        result.set(null);
        note.set("");
        String keepOutput = output.get() >= 0 && s != null && output.get() < s.graph().size() ? title(output.get()) : null;
        outputs.clear();
        leaves.clear();
        groups.clear();
        ends = Map.of();
        if (s == null) {
            output.set(-1);
            return;
        }
        // Gathered first, then set once each: a list listener that rebuilds on each change would rebuild once a vertex.
        JacobianChoices c = JacobianChoices.of(s);
        leaves.setAll(c.leaves());
        outputs.setAll(c.outputs());
        ends = c.groupEnds();
        for (String g : s.graph().groupNames()) {
            if (groupEnds(g) != null) {
                groups.add(g);
            }
        }
        int again = keepOutput == null ? -1 : s.find(keepOutput);
        output.set(isOutput(again) ? again : -1);
        if (leaf.get() != null && !leaves.contains(leaf.get())) {
            leaf.set(null);
        }
    }

    /** The selected vertex if it has a Jacobian, else the last op before the objective that is not a scalar. */
    private int defaultOutput() {
        int sel = sweep.selected().get();
        if (isOutput(sel)) {
            return sel;
        }
        Sweep s = sweep.recorded().get();
        for (int k = outputs.size() - 1; k >= 0; k--) {
            TraceGraph.Vertex v = s.graph().vertex(outputs.get(k).vertex());
            if (v.kind() == TraceGraph.Kind.OP && v.name() != null && v.value().numel() > 1) {
                return v.index();
            }
        }
        return outputs.get(outputs.size() - 1).vertex();
    }

    private boolean isOutput(int vertex) {
        return vertex >= 0 && outputs.stream().anyMatch(o -> o.vertex() == vertex);
    }

    /** The leaves with a gradient that {@code vertex} depends on, in the order of the program. */
    List<String> leavesUpstreamOf(int vertex) {
        Sweep s = sweep.recorded().get();
        return s == null || vertex < 0 ? List.of() : JacobianChoices.leavesUpstreamOf(s, leaves, vertex);
    }

    /** A vertex's name, else its op. */
    public String title(int vertex) {
        Sweep s = sweep.recorded().get();
        return s == null || vertex < 0 || vertex >= s.graph().size() ? "#" + vertex : s.graph().vertex(vertex).title();
    }

    private String step(int vertex) {
        TraceGraph.Vertex v = sweep.recorded().get().graph().vertex(vertex);
        return v.kind() == TraceGraph.Kind.OP || v.kind() == TraceGraph.Kind.OBJECTIVE
                ? v.op() + (v.name() != null ? " (" + v.name() + ")" : "") : v.title();
    }

    private void changed() {
        revision.set(revision.get() + 1);
    }
}
