package io.gradscope.app.viewmodel;

import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.NotRetained;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The steps of a recorded run, forward (one vertex per step, in creation order) or backward (the
 * engine's BackwardStep events, in the order it ran them, with the Recompute events of the
 * checkpoint segments it re-ran in between, in trace order: a recompute step is about the
 * recomputed op's vertex and sends nothing), and what each vertex looks like at a given cursor. Nothing is recomputed: it only reads the run's trace. Built in O(vertices + steps);
 * every question about one step or one vertex is answered in O(1) (or in the op's arity).
 * Cursor -1 is "before the first step".
 */
public final class Sweep {
    /** Which pass is being stepped. */
    public enum Mode { FORWARD, BACKWARD }

    /** How a vertex is drawn at the cursor. */
    public enum State { CURRENT, VISITED, PENDING, OUTSIDE }

    private final ProgramRun run;
    private final TraceGraph graph;
    private final List<TraceEvent.BackwardStep> backward;
    /** Per backward step: its index in {@link #backward}, or -1 for a recompute step. */
    private final int[] backwardIndex;
    /** Per backward step: its Recompute event, or null for a backward step proper. */
    private final TraceEvent.Recompute[] recompute;
    /** The vertex of each backward step (-1: a node the graph does not show). */
    private final int[] backwardVertex;
    /** The backward step of each vertex (-1: never reached). */
    private final int[] backwardStepOf;
    /** Per vertex, the backward steps that send it a contribution, in order. */
    private final List<List<int[]>> sentTo;

    public Sweep(ProgramRun run, TraceGraph graph) {
        this.run = run;
        this.graph = graph;
        List<TraceEvent.BackwardStep> bs = new ArrayList<>();
        List<TraceEvent.Recompute> rs = new ArrayList<>();
        for (TraceEvent e : run.trace().events()) {
            if (e instanceof TraceEvent.BackwardStep b) {
                bs.add(b);
                rs.add(null);
            } else if (e instanceof TraceEvent.Recompute r) {
                rs.add(r);
            }
        }
        this.backward = bs;
        this.recompute = rs.toArray(new TraceEvent.Recompute[0]);
        this.backwardIndex = new int[recompute.length];
        this.backwardVertex = new int[recompute.length];
        this.backwardStepOf = new int[graph.size()];
        Arrays.fill(backwardStepOf, -1);
        for (int i = 0, b = 0; i < recompute.length; i++) {
            int v = graph.indexOf(recompute[i] != null ? recompute[i].node() : backward.get(b).node());
            backwardVertex[i] = v;
            backwardIndex[i] = recompute[i] != null ? -1 : b++;
            if (v >= 0 && recompute[i] == null) {
                backwardStepOf[v] = i;
            }
        }
        sentTo = new ArrayList<>();
        for (int v = 0; v < graph.size(); v++) {
            sentTo.add(null);
        }
        for (int i = 0; i < recompute.length; i++) {
            int v = backwardVertex[i];
            if (v < 0 || recompute[i] != null) {
                continue;
            }
            List<TraceEvent.Contribution> cs = backward.get(backwardIndex[i]).contributions();
            for (int c = 0; c < cs.size(); c++) {
                int to = graph.inputOf(v, cs.get(c).input());
                if (to >= 0) {
                    if (sentTo.get(to) == null) {
                        sentTo.set(to, new ArrayList<>());
                    }
                    sentTo.get(to).add(new int[] {i, c});
                }
            }
        }
    }

    /**
     * What a vertex has received by the cursor: the sum of the contributions sent to it by the steps
     * up to the cursor ({@code sum} null when none yet), how many that is of how many it gets in
     * all, and the step at which its upstream gradient is complete (-1: never).
     */
    public record Received(Tensor sum, int count, int total, int completeAt) {
    }

    /** What vertex has received by the cursor (backward pass). */
    public Received received(int cursor, int vertex) {
        if (vertex < 0 || vertex >= graph.size()) {
            return null;
        }
        List<int[]> all = sentTo.get(vertex) == null ? List.of() : sentTo.get(vertex);
        double[] sum = null;
        int count = 0;
        boolean gone = false;
        int[] shape = graph.vertex(vertex).value().shape();
        for (int[] sc : all) {
            if (sc[0] > cursor) {
                break;
            }
            Tensor sent = backward.get(backwardIndex[sc[0]]).contributions().get(sc[1]).gradient();
            count++;
            // A contribution the run did not retain leaves the sum so far unknown (null).
            gone |= NotRetained.is(sent);
            if (gone) {
                continue;
            }
            double[] g = sent.toDoubleArray();
            if (sum == null) {
                sum = new double[g.length];
            }
            if (g.length == sum.length) {
                for (int k = 0; k < g.length; k++) {
                    sum[k] += g[k];
                }
            }
        }
        return new Received(sum == null || gone ? null : Tensor.of(sum, shape), count, all.size(), backwardStepOf(vertex));
    }

    public ProgramRun run() {
        return run;
    }

    public TraceGraph graph() {
        return graph;
    }

    public int steps(Mode mode) {
        return mode == Mode.FORWARD ? graph.size() : recompute.length;
    }

    /** The vertex a step is about, or -1. */
    public int vertexAt(Mode mode, int step) {
        if (step < 0 || step >= steps(mode)) {
            return -1;
        }
        return mode == Mode.FORWARD ? step : backwardVertex[step];
    }

    /** The step at which the backward sweep reaches a vertex, or -1 if it never does. */
    public int backwardStepOf(int vertex) {
        return vertex < 0 || vertex >= backwardStepOf.length ? -1 : backwardStepOf[vertex];
    }

    /** The step at which a pass reaches a vertex, or -1. */
    public int stepOf(Mode mode, int vertex) {
        return mode == Mode.FORWARD ? (vertex >= 0 && vertex < graph.size() ? vertex : -1) : backwardStepOf(vertex);
    }

    /**
     * How a vertex looks at the cursor: current at its step (and, in the backward pass, while its op
     * is being recomputed), visited after it, pending before it.
     */
    public State state(Mode mode, int cursor, int vertex) {
        int step = stepOf(mode, vertex);
        if (step < 0) {
            return State.OUTSIDE;
        }
        if (step == cursor || (mode == Mode.BACKWARD && recomputeAt(cursor) != null && backwardVertex[cursor] == vertex)) {
            return State.CURRENT;
        }
        return step < cursor ? State.VISITED : State.PENDING;
    }

    /** The backward step record at a step, or null (also for a recompute step). */
    public TraceEvent.BackwardStep backwardStep(int step) {
        return step < 0 || step >= recompute.length || recompute[step] != null ? null : backward.get(backwardIndex[step]);
    }

    /** The Recompute event of a backward step that re-runs a checkpointed op, or null. */
    public TraceEvent.Recompute recomputeAt(int step) {
        return step < 0 || step >= recompute.length ? null : recompute[step];
    }

    /** "recomputing tanh (segment 2)" for a recompute step (segments numbered from 1), else null. */
    public String recomputing(int step) {
        TraceEvent.Recompute r = recomputeAt(step);
        return r == null ? null : "recomputing " + r.op() + " (segment " + (r.segment() + 1) + ")";
    }

    /** The complete upstream gradient of a vertex, once the backward cursor has reached it; else null. */
    public Tensor upstream(int cursor, int vertex) {
        int step = backwardStepOf(vertex);
        return step < 0 || step > cursor ? null : backward.get(backwardIndex[step]).upstream();
    }

    /**
     * The edges that light up at the cursor: in the backward pass those along which the current step
     * sends contributions (to its inputs); in the forward pass those feeding the current vertex.
     */
    public List<TraceGraph.Edge> activeEdges(Mode mode, int cursor) {
        int v = vertexAt(mode, cursor);
        if (v < 0) {
            return List.of();
        }
        if (mode == Mode.FORWARD || recompute[cursor] != null) {
            return graph.inEdges(v); // running an op (again) reads along its input edges
        }
        List<TraceGraph.Edge> out = new ArrayList<>();
        for (TraceEvent.Contribution c : backward.get(backwardIndex[cursor]).contributions()) {
            for (TraceGraph.Edge e : graph.inEdges(v)) {
                if (e.input() == c.input()) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    /** The contributions a backward step sends, per input index, as (input vertex, gradient). */
    public List<Contribution> contributions(int step) {
        List<Contribution> out = new ArrayList<>();
        TraceEvent.BackwardStep s = backwardStep(step);
        if (s == null) {
            return out;
        }
        int v = backwardVertex[step];
        for (TraceEvent.Contribution c : s.contributions()) {
            out.add(new Contribution(c.input(), v < 0 ? -1 : graph.inputOf(v, c.input()), c.gradient()));
        }
        return out;
    }

    /**
     * The first vertex whose name is {@code query}, else whose name contains it, else whose op
     * contains it (ignoring case); -1 when none.
     */
    public int find(String query) {
        String q = query.strip().toLowerCase(Locale.ROOT);
        List<Predicate<TraceGraph.Vertex>> tests = List.of(
                v -> v.title().equals(query.strip()),
                v -> v.title().toLowerCase(Locale.ROOT).contains(q),
                v -> v.op().toLowerCase(Locale.ROOT).contains(q));
        for (Predicate<TraceGraph.Vertex> test : tests) {
            for (TraceGraph.Vertex v : graph.vertices()) {
                if (test.test(v)) {
                    return v.index();
                }
            }
        }
        return -1;
    }

    /**
     * Every vertex {@link #find} would consider, best first: those named {@code query}, then those whose
     * name contains it, then those whose op contains it (ignoring case), each in the graph's order.
     */
    public int[] findAll(String query) {
        String exact = query.strip();
        String q = exact.toLowerCase(Locale.ROOT);
        List<Integer> named = new java.util.ArrayList<>();
        List<Integer> inName = new java.util.ArrayList<>();
        List<Integer> inOp = new java.util.ArrayList<>();
        for (TraceGraph.Vertex v : graph.vertices()) {
            if (v.title().equals(exact)) {
                named.add(v.index());
            } else if (v.title().toLowerCase(Locale.ROOT).contains(q)) {
                inName.add(v.index());
            } else if (v.op().toLowerCase(Locale.ROOT).contains(q)) {
                inOp.add(v.index());
            }
        }
        named.addAll(inName);
        named.addAll(inOp);
        return named.stream().mapToInt(Integer::intValue).toArray();
    }

    /** A contribution sent to input number {@code input}, the vertex {@code toVertex}. */
    public record Contribution(int input, int toVertex, Tensor gradient) {
    }
}
