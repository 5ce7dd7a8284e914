package io.gradscope.app.viewmodel;

import io.gradscope.engine.program.ProgramGraph;
import io.gradscope.engine.program.ProgramRun;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.DoubleProperty;
import javafx.beans.property.IntegerProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleDoubleProperty;
import javafx.beans.property.SimpleIntegerProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;

/**
 * The state of one session, as properties the views bind to: the program text, the recorded run,
 * the error of the last run, the mode and cursor of the sweep, and the selection. Depends only on
 * javafx.base; stepping moves the cursor over the recorded trace and recomputes nothing.
 */
public final class SessionViewModel {
    private final StringProperty source = new SimpleStringProperty("");
    private final StringProperty fileName = new SimpleStringProperty("untitled.grad");
    private final ObjectProperty<Sweep> sweep = new SimpleObjectProperty<>();
    private final ObjectProperty<RunError> error = new SimpleObjectProperty<>();
    private final ObjectProperty<Sweep.Mode> mode = new SimpleObjectProperty<>(Sweep.Mode.BACKWARD);
    private final IntegerProperty cursor = new SimpleIntegerProperty(-1);
    private final IntegerProperty selected = new SimpleIntegerProperty(-1);
    private final BooleanProperty playing = new SimpleBooleanProperty(false);
    private final DoubleProperty speed = new SimpleDoubleProperty(2.0);

    /** The error of the last run: the message as the command line prints it, and its position (0 if none). */
    public record RunError(String message, String what, int line, int column) {
    }

    public SessionViewModel() {
        mode.addListener((o, a, b) -> cursor.set(-1));
    }

    public StringProperty source() {
        return source;
    }

    public StringProperty fileName() {
        return fileName;
    }

    public ObjectProperty<Sweep> sweep() {
        return sweep;
    }

    public ObjectProperty<RunError> error() {
        return error;
    }

    public ObjectProperty<Sweep.Mode> mode() {
        return mode;
    }

    public IntegerProperty cursor() {
        return cursor;
    }

    public IntegerProperty selected() {
        return selected;
    }

    public BooleanProperty playing() {
        return playing;
    }

    /** Steps per second while playing. */
    public DoubleProperty speed() {
        return speed;
    }

    /** A finished run: the sweep starts before its first step; the text and selection stay. */
    public void showRun(ProgramRun run) {
        playing.set(false);
        error.set(null);
        cursor.set(-1);
        selected.set(-1);
        sweep.set(new Sweep(run));
    }

    /** A failed run: the message is shown, the last good run stays on screen. */
    public void showError(RunError e) {
        playing.set(false);
        error.set(e);
    }

    public int steps() {
        Sweep s = sweep.get();
        return s == null ? 0 : s.steps(mode.get());
    }

    public boolean stepForward() {
        if (cursor.get() + 1 >= steps()) {
            playing.set(false);
            return false;
        }
        cursor.set(cursor.get() + 1);
        return true;
    }

    public boolean stepBack() {
        if (cursor.get() < 0) {
            return false;
        }
        cursor.set(cursor.get() - 1);
        return true;
    }

    public void toStart() {
        cursor.set(-1);
    }

    public void toEnd() {
        cursor.set(steps() - 1);
    }

    /** The vertex of the current step, or -1. */
    public int currentVertex() {
        Sweep s = sweep.get();
        return s == null ? -1 : s.vertexAt(mode.get(), cursor.get());
    }

    /** What the inspector shows: the selected vertex, else the current one. */
    public int inspectedVertex() {
        return selected.get() >= 0 ? selected.get() : currentVertex();
    }

    public Sweep.State state(int vertex) {
        Sweep s = sweep.get();
        return s == null ? Sweep.State.OUTSIDE : s.state(mode.get(), cursor.get(), vertex);
    }

    /** The upstream gradient of a vertex as of the cursor (backward mode; null before it is complete). */
    public Tensor upstream(int vertex) {
        Sweep s = sweep.get();
        if (s == null || mode.get() != Sweep.Mode.BACKWARD) {
            return null;
        }
        return s.upstream(cursor.get(), vertex);
    }

    public ProgramGraph.Vertex vertex(int id) {
        Sweep s = sweep.get();
        return s == null || id < 0 || id >= s.graph().vertices().size() ? null : s.graph().vertices().get(id);
    }

    /**
     * Selects the first vertex whose name is {@code query}, else whose name contains it, else whose op
     * contains it (ignoring case); false when none.
     */
    public boolean find(String query) {
        Sweep s = sweep.get();
        if (s == null || query == null || query.isBlank()) {
            return false;
        }
        String q = query.strip().toLowerCase(java.util.Locale.ROOT);
        List<ProgramGraph.Vertex> vs = s.graph().vertices();
        List<java.util.function.Predicate<ProgramGraph.Vertex>> tests = List.of(
                v -> v.title().equals(query.strip()),
                v -> v.title().toLowerCase(java.util.Locale.ROOT).contains(q),
                v -> v.op().toLowerCase(java.util.Locale.ROOT).contains(q));
        for (var test : tests) {
            for (ProgramGraph.Vertex v : vs) {
                if (test.test(v)) {
                    selected.set(v.id());
                    return true;
                }
            }
        }
        return false;
    }
}
