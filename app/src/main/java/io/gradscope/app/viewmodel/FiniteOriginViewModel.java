package io.gradscope.app.viewmodel;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.diagnose.FiniteOrigin;
import io.gradscope.engine.diagnose.NonFiniteEffect;
import io.gradscope.engine.trace.TraceGraph;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/**
 * Where a NaN or Inf was born in the run on screen: the engine's {@link FiniteOrigin} finds the
 * producer and the values that only passed it on (off the UI thread, when a run is shown); this
 * keeps them by vertex and has "Jump to origin". A part of {@link DiagnosticsViewModel}.
 */
public final class FiniteOriginViewModel {
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

    private final SweepViewModel sweep;
    private final RunService service;
    private final Consumer<String> report;
    private final Runnable changed;
    private final ReadOnlyObjectWrapper<FiniteOrigin.Report> finite = new ReadOnlyObjectWrapper<>(this, "finite");
    private final ReadOnlyObjectWrapper<Jump> jump = new ReadOnlyObjectWrapper<>(this, "jump");
    private final Set<Integer> propagators = new HashSet<>();
    private int producer = -1;
    private int request;

    FiniteOriginViewModel(SweepViewModel sweep, RunService service, Consumer<String> report, Runnable changed) {
        this.sweep = sweep;
        this.service = service;
        this.report = report;
        this.changed = changed;
    }

    /** Where a NaN or Inf was born in the run on screen (null until looked at). */
    public ReadOnlyObjectProperty<FiniteOrigin.Report> finite() {
        return finite.getReadOnlyProperty();
    }

    /** The last "Jump to origin" (the editor shows its line). */
    public ReadOnlyObjectProperty<Jump> jump() {
        return jump.getReadOnlyProperty();
    }

    /** The producer of the first NaN or Inf, or -1. */
    public int producer() {
        return producer;
    }

    /** Whether a drawn node only passes a non-finite value on (forward or backward). */
    public boolean isPropagator(int vertex) {
        return propagators.contains(vertex);
    }

    /** How many drawn nodes only pass a non-finite value on. */
    public int propagatorCount() {
        return propagators.size();
    }

    /** Whether the non-finite value was absorbed (an infinity that left no NaN behind). */
    public boolean absorbed() {
        return finite.get() != null && finite.get().absorbed();
    }

    /** What the non-finite value did to the run on screen ("the gradient of 's' holds 6 NaN"), or null. */
    public String harm() {
        Sweep s = sweep.recorded().get();
        return s == null ? null : NonFiniteEffect.of(s.run());
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

    /** A new run is on screen: forgets the last one's findings. */
    void reset() {
        request++;
        propagators.clear();
        producer = -1;
        finite.set(null);
    }

    /** Looks for the origin in the run on screen off the UI thread (after {@link #reset()}). */
    void find(Sweep now) {
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
            changed.run();
        });
    }

    private void addIfDrawn(TraceGraph g, long id) {
        int v = g.indexOf(id);
        if (v >= 0) {
            propagators.add(v);
        }
    }
}
