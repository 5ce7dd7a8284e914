package io.gradscope.app.viewmodel;

import io.gradscope.app.service.RunService;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.Replay;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.NotRetained;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;

/**
 * What the inspector shows for a value or gradient the run did not retain ({@code --retain fit|none}):
 * when the inspected vertex's value, or (backward pass) its upstream gradient or the contributions of
 * the current step, are stand-ins ({@link NotRetained}), the engine replays the step off the UI thread
 * ({@link Replay}) and {@link #answer()} becomes what it recomputed, bit for bit what a run keeping
 * everything would have shown. The last few answers are kept, so stepping back and forth does not
 * replay again. The app only shows what the engine recomputed.
 */
public final class OnDemandViewModel {
    /** Said beside a value or gradient recomputed on demand. */
    public static final String NOTE = "Recomputed on demand (not retained)";
    /** Said while it is being recomputed. */
    public static final String WORKING = "Not retained: recomputing…";

    /**
     * The recomputed value of {@code vertex} of {@code sweep}'s run, and with {@code gradients} its
     * upstream gradient (null: the backward pass does not reach it) and its step's contributions;
     * {@code failure} says why there is none (else null).
     */
    public record Answer(Sweep sweep, int vertex, boolean gradients, Tensor value, Tensor upstream,
                         List<Sweep.Contribution> contributions, String failure) {
    }

    private static final int KEPT = 8;

    private final SweepViewModel sweep;
    private final RunService service;
    private final Supplier<RunService.Request> shown;
    private final ReadOnlyObjectWrapper<Answer> answer = new ReadOnlyObjectWrapper<>(this, "answer");
    private final ReadOnlyObjectWrapper<String> working = new ReadOnlyObjectWrapper<>(this, "working");
    private final Map<String, Answer> recent = new LinkedHashMap<>(16, 0.75f, true);
    private Sweep recentOf;
    private String asked;
    /** Whether an inspection arrived while a replay was running (it is answered next). */
    private boolean waiting;

    /** {@code shown}: the request of the run on screen (its program text and options are replayed). */
    public OnDemandViewModel(SweepViewModel sweep, RunService service, Supplier<RunService.Request> shown) {
        this.sweep = sweep;
        this.service = service;
        this.shown = shown;
        sweep.inspection().addListener((o, a, b) -> update());
    }

    /** The latest recomputed answer (for the inspected vertex or one inspected before), or null. */
    public ReadOnlyObjectProperty<Answer> answer() {
        return answer.getReadOnlyProperty();
    }

    /** The key of what is being recomputed now, or null. */
    public ReadOnlyObjectProperty<String> working() {
        return working.getReadOnlyProperty();
    }

    /** The recomputed answer for {@code vertex} of the run on screen, or null (not asked, or not yet there). */
    public Answer answerFor(int vertex) {
        Answer a = answer.get();
        return a != null && a.vertex() == vertex && a.sweep() == sweep.recorded().get() ? a : null;
    }

    /** Whether the inspected vertex needs anything recomputed at the view-model's current inspection. */
    boolean needs(SweepViewModel.Inspection i) {
        if (i == null || i.sweep() == null || i.vertex() < 0) {
            return false;
        }
        TraceGraph.Vertex v = i.sweep().graph().vertex(i.vertex());
        if (NotRetained.is(v.value())) {
            return true;
        }
        return i.mode() == Sweep.Mode.BACKWARD && gradientsMissing(i);
    }

    private static boolean gradientsMissing(SweepViewModel.Inspection i) {
        if (NotRetained.is(i.sweep().upstream(i.cursor(), i.vertex()))) {
            return true;
        }
        if (i.vertex() == i.sweep().vertexAt(Sweep.Mode.BACKWARD, i.cursor())) {
            for (Sweep.Contribution c : i.sweep().contributions(i.cursor())) {
                if (NotRetained.is(c.gradient())) {
                    return true;
                }
            }
        }
        return false;
    }

    private void update() {
        SweepViewModel.Inspection i = sweep.inspection().get();
        if (!needs(i)) {
            return;
        }
        if (recentOf != i.sweep()) {
            recent.clear();
            recentOf = i.sweep();
        }
        boolean gradients = i.mode() == Sweep.Mode.BACKWARD;
        String key = i.vertex() + (gradients ? "+g" : "");
        Answer known = recent.get(key);
        if (known == null && !gradients) {
            known = recent.get(i.vertex() + "+g"); // an answer with gradients has the value too
        }
        if (known != null) {
            answer.set(known);
            return;
        }
        if (working.get() != null) {
            // One replay at a time (each is a whole training step's memory): the latest inspection goes next.
            waiting = !key.equals(asked);
            return;
        }
        RunService.Request request = shown.get();
        if (request == null) {
            return;
        }
        asked = key;
        working.set(key);
        Sweep s = i.sweep();
        int vertex = i.vertex();
        ProgramRun run = s.run();
        // The run carries the program it ran: a replay runs it again, with no parse of its text.
        service.submit(() -> Replay.of(run.program(), RunService.options(request), run, vertex, gradients), (r, failure) -> {
            if (s != recentOf) {
                working.set(null); // another run is on screen now
                asked = null;
                if (waiting) {
                    waiting = false;
                    update();
                }
                return;
            }
            Answer a;
            if (failure != null) {
                a = new Answer(s, vertex, gradients, null, null, List.of(), "Could not recompute it: " + failure.getMessage());
            } else {
                a = new Answer(s, vertex, gradients, r.value(), r.upstream(), contributions(s.graph(), vertex, r.contributions()), null);
                recent.put(key, a);
                while (recent.size() > KEPT) {
                    recent.remove(recent.keySet().iterator().next());
                }
            }
            working.set(null);
            asked = null;
            answer.set(a);
            if (waiting) {
                waiting = false;
                update();
            }
        });
    }

    private static List<Sweep.Contribution> contributions(TraceGraph g, int vertex, List<TraceEvent.Contribution> cs) {
        List<Sweep.Contribution> out = new ArrayList<>();
        for (TraceEvent.Contribution c : cs) {
            out.add(new Sweep.Contribution(c.input(), g.inputOf(vertex, c.input()), c.gradient()));
        }
        return out;
    }

    /** Tells {@code listener} whenever an answer arrives or recomputing starts or stops (the inspector refreshes). */
    public void onChange(Consumer<Object> listener) {
        answer.addListener((o, a, b) -> listener.accept(b));
        working.addListener((o, a, b) -> listener.accept(b));
    }
}
