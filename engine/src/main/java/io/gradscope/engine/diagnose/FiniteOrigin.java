package io.gradscope.engine.diagnose;

import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.TensorStats;
import io.gradscope.engine.trace.NotRetained;
import io.gradscope.engine.trace.Source;
import io.gradscope.engine.trace.Trace;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a NaN or an infinity was born. In the forward pass, the first value whose inputs are all
 * finite but which is not is the producer; values computed from non-finite inputs only pass it on
 * (propagators). In the backward pass, the first step that received a finite upstream gradient
 * but sent a non-finite contribution is the producer (e.g. {@code sqrt} at 0). Each finding says
 * why, with its inputs' statistics. A value or gradient the run did not retain ({@link NotRetained})
 * is unknown, never taken as finite: a non-finite value whose inputs were not retained is reported
 * as the origin with that said in its {@code why} (the true producer may be one of those inputs),
 * and {@link Report#notRetained()} counts what could not be searched.
 *
 * <pre>{@code
 * FiniteOrigin.Report r = FiniteOrigin.find(run.trace());
 * r.origin();        // the producer, or null when everything is finite
 * r.propagators();   // trace ids of the values that only passed it on
 * }</pre>
 */
public final class FiniteOrigin {
    private FiniteOrigin() {
    }

    /** Which sweep a finding is in. */
    public enum Phase { FORWARD, BACKWARD }

    /**
     * A producer: the value {@code node} (a vertex of the trace graph) in {@code phase}, its op,
     * its source position, and {@code why} in words (its inputs' statistics).
     */
    public record Finding(Phase phase, long node, String title, String op, Source source, String why) {
    }

    /**
     * The first producer (forward before backward) and the ids of every propagator, per phase.
     * {@code absorbed}: the only non-finite values are infinities of the forward pass that never
     * reach the objective or any gradient (a −Inf mask before a softmax, exp(−Inf) = 0): no harm
     * done, so tools say so rather than raise an alarm. {@code notRetained}: values and gradients the
     * run did not keep, so not searched (no health in the maps).
     */
    public record Report(Finding origin, List<Long> forwardPropagators, List<Long> backwardPropagators,
                         Map<Long, Health> valueHealth, Map<Long, Health> gradientHealth, boolean absorbed,
                         int notRetained) {
        /** Whether some value or gradient was not finite. */
        public boolean anyBad() {
            return origin != null;
        }

        /** Whether something not finite did harm: it is not {@link #absorbed()}. */
        public boolean harmful() {
            return origin != null && !absorbed;
        }
    }

    /** Looks through a run's trace: forward values first, then the backward steps. */
    public static Report find(Trace trace) {
        TraceGraph g = TraceGraph.of(trace);
        Map<Long, Health> values = new HashMap<>();
        Finding origin = null;
        List<Long> forwardProp = new ArrayList<>();
        boolean nan = false;
        boolean objectiveFinite = false;
        int unknown = 0;
        for (TraceGraph.Vertex v : g.vertices()) {
            if (NotRetained.is(v.value())) {
                unknown++;
                continue;
            }
            Health h = Health.of(v.value());
            values.put(v.id(), h);
            if (v.kind() == TraceGraph.Kind.OBJECTIVE) {
                objectiveFinite = h.finite();
            }
            if (h.finite()) {
                continue;
            }
            nan |= h.nan() > 0;
            List<TraceGraph.Vertex> inputs = inputs(g, v);
            boolean someBad = inputs.stream().anyMatch(in -> values.containsKey(in.id()) && !values.get(in.id()).finite());
            List<TraceGraph.Vertex> dropped = inputs.stream().filter(in -> !values.containsKey(in.id())).toList();
            if (!someBad && origin == null) {
                String why = forwardWhy(v, h, inputs);
                if (!dropped.isEmpty()) {
                    why += "; not retained, so not searched: " + titles(dropped)
                            + " (the NaN or infinity may come from there: open with --retain all to search it)";
                }
                origin = new Finding(Phase.FORWARD, v.id(), v.title(), v.op(), v.source(), why);
            } else if (someBad) {
                forwardProp.add(v.id());
            }
        }
        Map<Long, Health> grads = new HashMap<>();
        List<Long> backwardProp = new ArrayList<>();
        Finding backward = null;
        for (TraceEvent e : trace.events()) {
            if (!(e instanceof TraceEvent.BackwardStep s)) {
                continue;
            }
            if (NotRetained.is(s.upstream())) {
                unknown++;
                continue;
            }
            Health up = Health.of(s.upstream());
            grads.put(s.node(), up);
            if (!up.finite()) {
                backwardProp.add(s.node());
                continue;
            }
            for (TraceEvent.Contribution c : s.contributions()) {
                if (NotRetained.is(c.gradient())) {
                    unknown++;
                    continue;
                }
                Health ch = Health.of(c.gradient());
                if (!ch.finite() && backward == null) {
                    int at = g.indexOf(s.node());
                    TraceGraph.Vertex v = at >= 0 ? g.vertex(at) : null;
                    backward = new Finding(Phase.BACKWARD, s.node(), v == null ? s.op() : v.title(), s.op(),
                            v == null ? Source.NONE : v.source(), backwardWhy(g, v, s, c, ch, up));
                }
            }
        }
        boolean absorbed = origin != null && !nan && objectiveFinite && backward == null && backwardProp.isEmpty();
        return new Report(origin != null ? origin : backward, List.copyOf(forwardProp), List.copyOf(backwardProp),
                Map.copyOf(values), Map.copyOf(grads), absorbed, unknown);
    }

    private static List<TraceGraph.Vertex> inputs(TraceGraph g, TraceGraph.Vertex v) {
        List<TraceGraph.Vertex> out = new ArrayList<>();
        for (TraceGraph.Edge e : g.inEdges(v.index())) {
            out.add(g.vertex(e.from()));
        }
        return out;
    }

    private static String forwardWhy(TraceGraph.Vertex v, Health h, List<TraceGraph.Vertex> inputs) {
        if (v.kind() != TraceGraph.Kind.OP) {
            return "the " + v.op() + " '" + v.title() + "' holds " + h.badText() + " of " + count(v.value()) + " values";
        }
        StringBuilder sb = new StringBuilder(v.op() + " gave " + h.badText() + " from finite inputs");
        for (TraceGraph.Vertex in : inputs) {
            sb.append("; ").append(in.title()).append(": ").append(describe(in.value()));
        }
        return sb.toString();
    }

    private static String backwardWhy(TraceGraph g, TraceGraph.Vertex v, TraceEvent.BackwardStep s, TraceEvent.Contribution c,
                                      Health bad, Health up) {
        StringBuilder sb = new StringBuilder("the gradient of " + s.op() + " for " + inputName(g, v, c) + " is "
                + bad.badText() + " from a finite upstream gradient");
        if (v != null) {
            List<TraceGraph.Vertex> inputs = inputs(g, v);
            for (TraceGraph.Vertex in : inputs) {
                sb.append("; ").append(in.title()).append(": ").append(describe(in.value()));
            }
        }
        return sb.toString();
    }

    /** The input a contribution goes to, by name ("'b'"), or by number where the graph does not show it. */
    private static String inputName(TraceGraph g, TraceGraph.Vertex v, TraceEvent.Contribution c) {
        int to = v == null ? -1 : g.inputOf(v.index(), c.input());
        return to >= 0 ? "'" + g.vertex(to).title() + "'" : "its input " + (c.input() + 1);
    }

    private static String titles(List<TraceGraph.Vertex> vs) {
        StringBuilder sb = new StringBuilder();
        for (TraceGraph.Vertex v : vs) {
            sb.append(sb.length() > 0 ? ", " : "").append('\'').append(v.title()).append('\'');
        }
        return sb.toString();
    }

    private static long count(Tensor t) {
        return t == null ? 0 : Shapes.numel(t.shape());
    }

    /** An input's statistics in words: "min −0.31, max 2.4, 12 zeros". */
    static String describe(Tensor t) {
        if (t == null) {
            return "unknown";
        }
        if (NotRetained.is(t)) {
            return "not retained";
        }
        TensorStats s = TensorStats.of(t);
        Health h = Health.of(t);
        StringBuilder sb = new StringBuilder("min " + num(s.min()) + ", max " + num(s.max()));
        if (h.zero() > 0) {
            sb.append(", ").append(h.zero()).append(h.zero() == 1 ? " zero" : " zeros");
        }
        if (h.negative() > 0 && s.min() < 0) {
            sb.append(", ").append(h.negative()).append(" negative");
        }
        if (!h.finite()) {
            sb.append(", ").append(h.badText());
        }
        return sb.toString();
    }

    private static String num(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        String s = v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
                : new java.math.BigDecimal(v).round(new java.math.MathContext(4)).stripTrailingZeros().toString();
        return s.replace("-", "−");
    }
}
