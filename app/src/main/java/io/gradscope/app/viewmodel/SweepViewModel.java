package io.gradscope.app.viewmodel;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.service.RunService;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceGraph;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
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

/**
 * Stepping through a recorded run: the pass, the cursor, the selection, playback, collapsed groups
 * and their layout. State is read-only properties changed only through the commands here. After
 * each command the graph's looks move by what changed ({@link #graphChange()}) and the inspector's
 * subject is set once ({@link #inspection()}). Depends only on javafx.base; recomputes nothing.
 */
public final class SweepViewModel {
    /** What the inspector shows: one value per step, selection or pass change. */
    public record Inspection(Sweep sweep, Sweep.Mode mode, int cursor, int vertex) {
    }

    private final RunService service;
    private final Consumer<String> report;
    private final ReadOnlyObjectWrapper<Sweep> recorded = new ReadOnlyObjectWrapper<>(this, "recorded");
    private final ReadOnlyObjectWrapper<GraphLayout.Result> layout = new ReadOnlyObjectWrapper<>(this, "layout");
    private final ReadOnlyObjectWrapper<Sweep.Mode> mode = new ReadOnlyObjectWrapper<>(this, "mode", Sweep.Mode.BACKWARD);
    private final ReadOnlyIntegerWrapper cursor = new ReadOnlyIntegerWrapper(this, "cursor", -1);
    private final ReadOnlyIntegerWrapper selected = new ReadOnlyIntegerWrapper(this, "selected", -1);
    private final ReadOnlyBooleanWrapper playing = new ReadOnlyBooleanWrapper(this, "playing");
    private final ReadOnlyDoubleWrapper speed = new ReadOnlyDoubleWrapper(this, "speed", 2.0);
    private final ReadOnlyObjectWrapper<Inspection> inspection = new ReadOnlyObjectWrapper<>(this, "inspection");
    private final ReadOnlyObjectWrapper<GraphStates.Change> graphChange = new ReadOnlyObjectWrapper<>(this, "graphChange");
    private final ReadOnlyObjectWrapper<String> foundKey = new ReadOnlyObjectWrapper<>(this, "found");
    private final ReadOnlyStringWrapper findCount = new ReadOnlyStringWrapper(this, "findCount", "");
    private final FindMatches matches = new FindMatches();
    private GraphStates states;
    private int layoutRequest;
    /** The vertex Find found whose sections are being opened, or -1. */
    private int revealing = -1;
    private final StepOpenings stepOpenings = new StepOpenings();
    /** The next layout shown is fitted (every group folded or opened at once: the graph's size changed throughout). */
    private boolean fitNext;

    /** {@code report} shows a line in the status bar. */
    public SweepViewModel(RunService service, Consumer<String> report) {
        this.service = service;
        this.report = report;
    }

    /** The recorded run being stepped, or null before the first run. */
    public ReadOnlyObjectProperty<Sweep> recorded() {
        return recorded.getReadOnlyProperty();
    }

    /** Where the graph's nodes are drawn (with its collapsed groups). */
    public ReadOnlyObjectProperty<GraphLayout.Result> layout() {
        return layout.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Sweep.Mode> mode() {
        return mode.getReadOnlyProperty();
    }

    public ReadOnlyIntegerProperty cursor() {
        return cursor.getReadOnlyProperty();
    }

    /** The selected vertex, or -1. */
    public ReadOnlyIntegerProperty selected() {
        return selected.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty playing() {
        return playing.getReadOnlyProperty();
    }

    /** Steps per second while playing. */
    public ReadOnlyDoubleProperty speed() {
        return speed.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Inspection> inspection() {
        return inspection.getReadOnlyProperty();
    }

    /** The drawn nodes and edges whose look the last command changed (a new layout is drawn whole instead). */
    public ReadOnlyObjectProperty<GraphStates.Change> graphChange() {
        return graphChange.getReadOnlyProperty();
    }

    /** How every drawn node and edge looks now (null before the first run). */
    public GraphStates graphStates() {
        return states;
    }

    /** Shows a finished run: the sweep starts before its first step, nothing selected, every group expanded. */
    public void show(ProgramRun run, TraceGraph graph, GraphLayout.Result drawnAt) {
        playing.set(false); // (not pause(): nothing of the old run opens)
        layoutRequest++;
        states = null; // until the layout is shown: nothing drawn to restyle
        cursor.set(-1);
        selected.set(-1);
        stepOpenings.clear();
        forgetFind();
        recorded.set(new Sweep(run, graph));
        showLayout(drawnAt);
    }

    /**
     * Lets go of the run shown: nothing is recorded, laid out, selected or steppable until the next
     * {@link #show}. A program opened in place of another drops the other's run at once, so that a new
     * text that fails to parse or run never stands beside a graph of the old one (its steps named lines
     * the new text does not have). Every listener of {@link #recorded()}, {@link #layout()} and
     * {@link #inspection()} takes null as "no run".
     */
    public void clear() {
        playing.set(false); // (not pause(): nothing of the old run opens)
        layoutRequest++; // a layout still being made for the old run is dropped
        revealing = -1;
        states = null;
        cursor.set(-1);
        selected.set(-1);
        stepOpenings.clear();
        fitNext = false;
        foundKey.set(null);
        forgetFind();
        if (recorded.get() == null && layout.get() == null) {
            return;
        }
        recorded.set(null);
        layout.set(null);
        publish();
    }

    /**
     * Switches the pass, keeping the place: the cursor moves to the step of the new pass that is about
     * the same vertex (forward step of logits → backward step of logits); a vertex the new pass never
     * reaches keeps the step number (within the new pass's steps).
     */
    public void setMode(Sweep.Mode m) {
        if (m == mode.get()) {
            return;
        }
        Sweep s = recorded.get();
        int vertex = currentVertex();
        int at = cursor.get();
        mode.set(m);
        if (s != null && at >= 0) {
            int step = s.stepOf(m, vertex);
            cursor.set(step >= 0 ? step : Math.min(at, s.steps(m) - 1));
        } else {
            cursor.set(-1);
        }
        if (recorded.get() != null && layout.get() != null) {
            // Every look changes with the pass: one change with all of them.
            graphChange.set(restate(layout.get()).all());
            inspection.set(new Inspection(recorded.get(), mode.get(), cursor.get(), inspectedVertex()));
        } else {
            publish();
        }
    }

    public boolean stepForward() {
        if (cursor.get() + 1 >= steps()) {
            pause();
            return false;
        }
        return jumpTo(cursor.get() + 1);
    }

    public boolean stepBack() {
        return cursor.get() >= 0 && jumpTo(cursor.get() - 1);
    }

    public void toStart() {
        jumpTo(-1);
    }

    public void toEnd() {
        jumpTo(steps() - 1);
    }

    /**
     * Moves the cursor to {@code step} (-1: before the first); false when there is no such step. The
     * inspector follows the step: a node clicked before is let go (clicking a node inspects it until
     * the next step), and folded sections holding the step's node open ({@link StepOpenings}).
     */
    public boolean jumpTo(int step) {
        if (step < -1 || step >= steps() || step == cursor.get()) {
            return step == cursor.get() && step >= -1;
        }
        cursor.set(step);
        selected.set(-1);
        publish();
        // Playing fast, a new layout each time the steps enter a section would be asked again before the
        // last one came (10,000 nodes of unfolded blocks at 20 steps/s showed the folded box throughout):
        // the sections open where the play pauses.
        if (!playing.get() || speed.get() <= OPEN_WHILE_PLAYING) {
            openForStep();
        }
        return true;
    }

    /** The fastest play (steps a second) at which each step opens the folded sections holding its node. */
    static final double OPEN_WHILE_PLAYING = 4;

    private void openForStep() {
        Set<String> next = layout.get() == null ? null : stepOpenings.after(layout.get(), currentVertex());
        if (next != null) {
            // Back before the first step, what the steps opened folds back: the whole outline again, fitted
            // (the view stayed where the opened section had been, the graph small in a corner).
            fitNext |= cursor.get() < 0;
            relayout(next);
        }
    }

    /** Selects a vertex (-1: none); the inspector shows it instead of the current step's. */
    public void select(int vertex) {
        selected.set(vertex(vertex) != null ? vertex : -1);
        publish();
    }

    /** Selects the vertex drawn as {@code key} ("v12"); a group or nothing clears the selection. */
    public void selectKey(String key) {
        select(key != null && key.startsWith("v") ? Integer.parseInt(key.substring(1)) : -1);
    }

    /**
     * Selects the first vertex whose name is {@code query}, else whose name contains it, else whose op
     * contains it (ignoring case); false when none. Asked again with the same query, the next match.
     */
    public boolean find(String query) {
        return find(query, 1);
    }

    /**
     * Selects the match {@code step} (+1 next, -1 previous) from the one shown for {@code query}
     * ({@link Sweep#findAll}: names equal, then names containing it, then ops), round the end; a new
     * query starts at its first match (its last going back). {@link #findCount()} says which of how
     * many. False when none matches.
     */
    public boolean find(String query, int step) {
        boolean asked = recorded.get() != null && query != null && !query.isBlank();
        int found = asked ? matches.step(recorded.get(), query, step) : -1;
        if (!asked) {
            forgetFind();
        }
        findCount.set(matches.count());
        if (found >= 0) {
            select(found);
            // Inside folded sections (or runs), the node is shown: what holds it opens, the rest stays as it is.
            Set<String> holding = new java.util.LinkedHashSet<>(layout.get().source().hierarchy().chain(found));
            holding.retainAll(layout.get().collapsed());
            String where = holding.isEmpty() ? "" : " (opened " + holding.stream()
                    .map(c -> layout.get().source().hierarchy().container(c).name().split(":")[0]).collect(java.util.stream.Collectors.joining(", ")) + ")";
            report.accept("Found " + vertex(found).title() + (findCount.get().endsWith(" of 1") ? "" : ", " + findCount.get()) + where);
            if (holding.isEmpty()) {
                announceFound(found);
            } else {
                Set<String> next = new HashSet<>(layout.get().collapsed());
                next.removeAll(holding);
                revealing = found;
                relayout(next);
            }
        } else if (asked) {
            report.accept("No node named '" + query + "'");
        }
        return found >= 0;
    }

    /** Which match Find shows of how many ("3 of 150", "no match"), or "" with no query asked. */
    public ReadOnlyStringProperty findCount() {
        return findCount.getReadOnlyProperty();
    }

    /** The query was edited or the run replaced: the next Enter finds afresh. */
    public void forgetFind() {
        matches.forget();
        findCount.set("");
    }

    /**
     * The drawn node Find found ("v12"), set once it is drawn (after the sections holding it opened), for
     * the graph to bring into view; each find sets it anew.
     */
    public ReadOnlyObjectProperty<String> found() {
        return foundKey.getReadOnlyProperty();
    }

    private void announceFound(int vertex) {
        foundKey.set(null);
        foundKey.set(keyOf(vertex));
    }

    /** Plays from the start when at the end. */
    public void play() {
        if (cursor.get() >= steps() - 1) {
            toStart();
        }
        playing.set(true);
    }

    public void pause() {
        boolean was = playing.get();
        playing.set(false);
        if (was && recorded.get() != null) {
            openForStep();
        }
    }

    public void togglePlaying() {
        if (playing.get()) {
            pause();
        } else {
            play();
        }
    }

    public void setSpeed(double stepsPerSecond) {
        speed.set(Math.max(0.1, stepsPerSecond));
    }

    /** Collapses a group (by path) into one node, or expands it; the new layout comes off the UI thread. */
    public void toggleGroup(String path) {
        if (recorded.get() == null || path == null) {
            return;
        }
        stepOpenings.forget(path);
        Set<String> next = new HashSet<>(layout.get().collapsed());
        if (!next.remove(path)) {
            next.add(path);
        }
        relayout(next);
    }

    /** Collapses every outermost group and run of repeated blocks. */
    public void collapseAll() {
        if (recorded.get() != null) {
            stepOpenings.clear();
            fitNext = true;
            // Every level: the outermost groups, and the sections and runs inside them (folded only the outermost,
            // a section opened afterwards showed all its sub-sections open).
            var h = layout.get().source().hierarchy();
            Set<String> all = new HashSet<>(h.outermost());
            all.addAll(h.sections());
            all.addAll(h.runs());
            relayout(all);
        }
    }

    /** Expands every group and unfolds every run. */
    public void expandAll() {
        if (recorded.get() != null) {
            stepOpenings.clear();
            fitNext = true;
            relayout(Set.of());
        }
    }

    /** Folds every run of repeated blocks into one node (as a graph is first shown); groups stay as they are. */
    public void foldRepeats() {
        if (recorded.get() != null) {
            Set<String> next = new HashSet<>(layout.get().collapsed());
            next.addAll(layout.get().source().hierarchy().runs());
            fitNext = true;
            relayout(next);
        }
    }

    private void relayout(Set<String> collapsed) {
        int request = ++layoutRequest;
        Sweep s = recorded.get();
        service.layout(layout.get().source(), collapsed, (result, failure) -> {
            if (request != layoutRequest) {
                return; // a newer run or layout replaced it
            }
            if (failure != null) {
                report.accept("Layout failed: " + failure);
            } else {
                showLayout(result);
                if (revealing >= 0 && revealing == selected.get()) {
                    announceFound(revealing);
                }
            }
            revealing = -1;
        });
    }

    /** Draws a new layout (its listeners draw it whole, with fresh states). */
    private void showLayout(GraphLayout.Result drawnAt) {
        restate(drawnAt);
        layout.set(drawnAt);
        publish();
    }

    private GraphStates restate(GraphLayout.Result drawnAt) {
        states = new GraphStates(recorded.get(), mode.get(), drawnAt.source().hierarchy(), drawnAt.collapsed(), cursor.get());
        states.update(cursor.get(), selected.get());
        return states;
    }

    /** Moves the looks to the cursor and selection, then sets the inspector's subject: once per command. */
    private void publish() {
        GraphStates.Change change = states == null ? null : states.update(cursor.get(), selected.get());
        if (change != null && !change.isEmpty()) {
            graphChange.set(change);
        }
        inspection.set(new Inspection(recorded.get(), mode.get(), cursor.get(), inspectedVertex()));
    }

    /** Whether the layout now shown should be fitted (Collapse/Expand All, Fold Repeats); asking clears it. */
    public boolean takeFitRequest() {
        boolean fit = fitNext;
        fitNext = false;
        return fit;
    }

    public int steps() {
        Sweep s = recorded.get();
        return s == null ? 0 : s.steps(mode.get());
    }

    /** The vertex of the current step, or -1. */
    public int currentVertex() {
        Sweep s = recorded.get();
        return s == null ? -1 : s.vertexAt(mode.get(), cursor.get());
    }

    /** What the inspector shows: the selected vertex, else the current one. */
    public int inspectedVertex() {
        return selected.get() >= 0 ? selected.get() : currentVertex();
    }

    public Sweep.State state(int vertex) {
        Sweep s = recorded.get();
        return s == null ? Sweep.State.OUTSIDE : s.state(mode.get(), cursor.get(), vertex);
    }

    /** What a vertex has received by the cursor in the backward pass: the sum of the contributions sent to it so far. */
    public Sweep.Received received(int vertex) {
        Sweep s = recorded.get();
        return s == null || mode.get() != Sweep.Mode.BACKWARD ? null : s.received(cursor.get(), vertex);
    }

    /** The upstream gradient of a vertex as of the cursor (backward pass; null before it is complete). */
    public Tensor upstream(int vertex) {
        Sweep s = recorded.get();
        return s == null || mode.get() != Sweep.Mode.BACKWARD ? null : s.upstream(cursor.get(), vertex);
    }

    /** A vertex of the recorded graph, or null. */
    public TraceGraph.Vertex vertex(int index) {
        Sweep s = recorded.get();
        return s == null || index < 0 || index >= s.graph().size() ? null : s.graph().vertex(index);
    }

    /** What the inspector shows of a vertex beyond its value, as its op recorded it (dropout's mask); empty for most. */
    public java.util.List<ShownSection> shown(int vertex) {
        return ShownSection.of(vertex(vertex));
    }

    /** The drawn node of a vertex under the current layout, or null. */
    public String keyOf(int vertex) {
        return states == null ? null : states.keyOf(vertex);
    }
}
