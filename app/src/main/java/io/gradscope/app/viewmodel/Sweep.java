package io.gradscope.app.viewmodel;

import io.gradscope.engine.program.ProgramGraph;
import io.gradscope.engine.program.ProgramRun;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The steps of a recorded run, forward (one vertex per step, in creation order) or backward (the
 * engine's BackwardStep events, in the order it ran them), and what each vertex looks like at a
 * given cursor. Nothing is recomputed: it only reads the run. Cursor -1 is "before the first step".
 */
public final class Sweep {
    /** Which pass is being stepped. */
    public enum Mode { FORWARD, BACKWARD }

    /** How a vertex is drawn at the cursor. */
    public enum State { CURRENT, VISITED, PENDING, OUTSIDE }

    private final ProgramRun run;
    private final ProgramGraph graph;
    private final List<TraceEvent.BackwardStep> backward;
    private final int[] backwardVertex;
    private final Map<Integer, Integer> stepOfVertex = new HashMap<>();

    public Sweep(ProgramRun run) {
        this.run = run;
        this.graph = run.programGraph();
        this.backward = run.trace().of(TraceEvent.BackwardStep.class);
        this.backwardVertex = new int[backward.size()];
        for (int i = 0; i < backward.size(); i++) {
            ProgramGraph.Vertex v = graph.byNodeId(backward.get(i).node());
            backwardVertex[i] = v == null ? -1 : v.id();
            if (v != null) {
                stepOfVertex.put(v.id(), i);
            }
        }
    }

    public ProgramRun run() {
        return run;
    }

    public ProgramGraph graph() {
        return graph;
    }

    public int steps(Mode mode) {
        return mode == Mode.FORWARD ? graph.vertices().size() : backward.size();
    }

    /** The vertex a step is about. */
    public int vertexAt(Mode mode, int step) {
        if (step < 0 || step >= steps(mode)) {
            return -1;
        }
        return mode == Mode.FORWARD ? step : backwardVertex[step];
    }

    /** The step at which the backward sweep reaches a vertex, or -1 if it never does. */
    public int backwardStepOf(int vertex) {
        return stepOfVertex.getOrDefault(vertex, -1);
    }

    public State state(Mode mode, int cursor, int vertex) {
        int step = mode == Mode.FORWARD ? vertex : backwardStepOf(vertex);
        if (step < 0) {
            return State.OUTSIDE;
        }
        if (step == cursor) {
            return State.CURRENT;
        }
        return step < cursor ? State.VISITED : State.PENDING;
    }

    /** The backward step record at a step, or null. */
    public TraceEvent.BackwardStep backwardStep(int step) {
        return step < 0 || step >= backward.size() ? null : backward.get(step);
    }

    /** The complete upstream gradient of a vertex, once the backward cursor has reached it; else null. */
    public Tensor upstream(int cursor, int vertex) {
        int step = backwardStepOf(vertex);
        return step < 0 || step > cursor ? null : backward.get(step).upstream();
    }

    /**
     * The edges that light up at the cursor: in the backward pass those along which the current step
     * sends contributions (to its inputs); in the forward pass those feeding the current vertex.
     */
    public Set<ProgramGraph.Edge> activeEdges(Mode mode, int cursor) {
        int v = vertexAt(mode, cursor);
        if (v < 0) {
            return Collections.emptySet();
        }
        Set<ProgramGraph.Edge> out = new HashSet<>();
        if (mode == Mode.FORWARD) {
            for (ProgramGraph.Edge e : graph.edges()) {
                if (e.to() == v) {
                    out.add(e);
                }
            }
            return out;
        }
        Set<Integer> inputs = new HashSet<>();
        for (TraceEvent.Contribution c : backward.get(cursor).contributions()) {
            inputs.add(c.input());
        }
        for (ProgramGraph.Edge e : graph.edges()) {
            if (e.to() == v && inputs.contains(e.input())) {
                out.add(e);
            }
        }
        return out;
    }

    /** The contributions the current backward step sends, per input index, as (input vertex, gradient). */
    public List<Contribution> contributions(int step) {
        List<Contribution> out = new ArrayList<>();
        TraceEvent.BackwardStep s = backwardStep(step);
        if (s == null) {
            return out;
        }
        int v = backwardVertex[step];
        for (TraceEvent.Contribution c : s.contributions()) {
            int from = -1;
            for (ProgramGraph.Edge e : graph.edges()) {
                if (e.to() == v && e.input() == c.input()) {
                    from = e.from();
                }
            }
            out.add(new Contribution(c.input(), from, c.gradient()));
        }
        return out;
    }

    /** A contribution sent to input number {@code input}, the vertex {@code toVertex}. */
    public record Contribution(int input, int toVertex, Tensor gradient) {
    }
}
