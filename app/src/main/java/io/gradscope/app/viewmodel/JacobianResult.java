package io.gradscope.app.viewmodel;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.jacobian.Coloring;
import io.gradscope.engine.jacobian.ColoringChoice;
import io.gradscope.engine.jacobian.EntryPaths;
import io.gradscope.engine.jacobian.JacobianEstimate;
import io.gradscope.engine.jacobian.RecordedRun;
import io.gradscope.engine.jacobian.RunJacobian;
import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.jacobian.Watched;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * A Jacobian the engine computed from the run on screen ({@link RecordedRun}: by the trace's ids,
 * nothing evaluated again), placed in its graph: the vertex differentiated, the leaf's vertex, and
 * the trace's edges among the vertices between them, so a picked nonzero's paths can be lit.
 */
public record JacobianResult(Request request, int leafVertex, RunJacobian jacobian, List<TraceGraph.Edge> edges) {
    /**
     * What to compute: the Jacobian of vertex {@code of} with respect to the value named {@code wrt};
     * {@code kind} null colors whichever of columns and rows needs fewer colors (rows on a tie), as the
     * command line does ({@link ColoringChoice}).
     */
    public record Request(int of, String wrt, Sparsity sparsity, Coloring.Kind kind, String order, RecordedRun.Part part) {
        /** All of the Jacobian. */
        public Request(int of, String wrt, Sparsity sparsity, Coloring.Kind kind, String order) {
            this(of, wrt, sparsity, kind, order, RecordedRun.Part.ALL);
        }
    }

    /** Thrown instead of starting: the estimate is above the limit the caller gave. */
    public static final class AboveLimit extends RuntimeException {
        private final transient JacobianEstimate estimate;

        AboveLimit(JacobianEstimate estimate) {
            super("estimated above the limit: " + estimate.summary(), null, false, false);
            this.estimate = estimate;
        }

        public JacobianEstimate estimate() {
            return estimate;
        }
    }

    /** Asks the engine for {@code r} of the recorded {@code run} whose graph is {@code graph} (a refusal is a {@link GradscopeException}). */
    public static JacobianResult compute(ProgramRun run, TraceGraph graph, Request r) {
        return compute(run, graph, r, null, Double.POSITIVE_INFINITY);
    }

    /**
     * The same, estimated first: above {@code maxSeconds} an {@link AboveLimit} is thrown before any
     * product; {@code cancelled} is asked as the pattern is found and before each product (then an
     * {@link io.gradscope.engine.sparse.IndexSets.Cancelled} is thrown).
     */
    public static JacobianResult compute(ProgramRun run, TraceGraph graph, Request r, BooleanSupplier cancelled, double maxSeconds) {
        return compute(run, graph, r, cancelled, maxSeconds, Watched.Progress.NONE);
    }

    /** The same, telling {@code progress} after each product how many were taken of how many. */
    public static JacobianResult compute(ProgramRun run, TraceGraph graph, Request r, BooleanSupplier cancelled, double maxSeconds,
                                         Watched.Progress progress) {
        int leafVertex = -1;
        for (TraceGraph.Vertex v : graph.vertices()) {
            if (r.wrt().equals(v.name())) {
                leafVertex = v.index();
                break;
            }
        }
        if (leafVertex < 0) {
            throw new GradscopeException("the run has no leaf named '" + r.wrt() + "'");
        }
        ColoringChoice coloring = new ColoringChoice(r.kind(), r.order(), ColoringChoice.CHEAPER.recolor());
        RecordedRun recorded = RecordedRun.of(run.trace());
        long of = graph.vertex(r.of()).id();
        long wrt = graph.vertex(leafVertex).id();
        if (maxSeconds < Double.POSITIVE_INFINITY && r.part() == RecordedRun.Part.ALL) {
            JacobianEstimate e = recorded.jacobian(of, wrt).estimate(r.sparsity(), cancelled);
            if (e.seconds() > maxSeconds) {
                throw new AboveLimit(e);
            }
        }
        RunJacobian j = recorded.jacobian(of, wrt, r.sparsity(), coloring, cancelled, progress, r.part());
        Set<Integer> members = new HashSet<>(List.of(leafVertex, r.of()));
        j.between().forEach(b -> members.add(graph.indexOf(b.node())));
        List<TraceGraph.Edge> edges = new ArrayList<>();
        if (j.depends()) {
            for (TraceGraph.Edge e : graph.edges()) {
                if (members.contains(e.from()) && members.contains(e.to()) && e.to() != leafVertex) {
                    edges.add(e);
                }
            }
        }
        return new JacobianResult(r, leafVertex, j, List.copyOf(edges));
    }

    /** The vertices on the paths along which leaf element {@code j} reaches output element {@code i}, the ends included. */
    public SortedSet<Integer> path(TraceGraph graph, int i, int j) {
        SortedSet<Integer> out = new TreeSet<>();
        for (long id : jacobian.path(i, j)) {
            int v = graph.indexOf(id);
            if (v >= 0) {
                out.add(v);
            }
        }
        return out;
    }

    /**
     * Why entry ({@code i}, {@code j}) is nonzero ({@link EntryPaths}): its paths through the ops'
     * rules in the recorded {@code run} this Jacobian was computed from, or where they are cut at these values.
     */
    public EntryPaths why(ProgramRun run, int i, int j, BooleanSupplier cancelled) {
        return EntryPaths.of(RecordedRun.of(run.trace()).jacobian(jacobian.of(), jacobian.wrt()), i, j, cancelled);
    }

    public int[] ofShape() {
        return jacobian.ofShape();
    }

    public int[] wrtShape() {
        return jacobian.wrtShape();
    }

    public Pattern pattern() {
        return jacobian.pattern();
    }

    public Coloring coloring() {
        return jacobian.coloring();
    }

    public int lowerBound() {
        return jacobian.lowerBound();
    }

    public boolean valid() {
        return jacobian.valid();
    }

    public SparseMatrix values() {
        return jacobian.values();
    }

    /** The compressed matrix's pattern: output × colors for a column coloring, colors × input for a row one. */
    public Pattern compressed() {
        return jacobian.compressed();
    }

    public int vjps() {
        return jacobian.vjps();
    }

    public int jvps() {
        return jacobian.jvps();
    }

    public int rows() {
        return jacobian.rows();
    }

    public int cols() {
        return jacobian.cols();
    }

    /** VJPs or JVPs: how many products the evaluation took. */
    public int products() {
        return jacobian.products();
    }
}
