package io.gradscope.engine.diagnose;

import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.NotRetained;
import io.gradscope.engine.trace.Trace;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What changed between two runs of a program (float32 against float64, CPU against CUDA, before
 * and after an edit): per value, the largest relative difference of its value and of its upstream
 * gradient, {@code max|a − b| / max|b|} (b is the reference). Values are paired by name where the
 * runs name them, else by their place in the forward pass when the two graphs have the same shape.
 *
 * <pre>{@code
 * List<RunDiff.Row> rows = RunDiff.of(run32.trace(), run64.trace());   // largest difference first
 * }</pre>
 */
public final class RunDiff {
    private RunDiff() {
    }

    /**
     * One value's differences (NaN where one side has no gradient, or did not retain it); {@code line} its program line;
     * {@code vertexA} and {@code vertexB} the value's vertex in each run's trace graph (so a viewer
     * can colour and pair the nodes without pairing them again).
     */
    public record Row(String title, String op, int line, double valueDiff, double gradientDiff, int vertexA, int vertexB) {
        /** The larger of the two differences, for ranking (NaN counts as 0). */
        public double score() {
            return Math.max(Double.isNaN(valueDiff) ? 0 : valueDiff, Double.isNaN(gradientDiff) ? 0 : gradientDiff);
        }
    }

    /** The rows of every value found in both runs, largest difference first; {@code b} is the reference. */
    public static List<Row> of(Trace a, Trace b) {
        TraceGraph ga = TraceGraph.of(a);
        TraceGraph gb = TraceGraph.of(b);
        Map<Long, Tensor> gradA = upstream(a);
        Map<Long, Tensor> gradB = upstream(b);
        boolean sameShape = ga.size() == gb.size();
        for (int i = 0; sameShape && i < ga.size(); i++) {
            sameShape = ga.vertex(i).op().equals(gb.vertex(i).op());
        }
        Map<String, TraceGraph.Vertex> bByName = new HashMap<>();
        gb.vertices().forEach(v -> {
            if (v.name() != null) {
                bByName.putIfAbsent(v.name(), v);
            }
        });
        List<Row> rows = new ArrayList<>();
        for (TraceGraph.Vertex va : ga.vertices()) {
            TraceGraph.Vertex vb = sameShape ? gb.vertex(va.index()) : va.name() == null ? null : bByName.get(va.name());
            if (vb == null) {
                continue;
            }
            rows.add(new Row(va.title(), va.op(), va.line(), relative(va.value(), vb.value()),
                    relative(gradA.get(va.id()), gradB.get(vb.id())), va.index(), vb.index()));
        }
        rows.sort(Comparator.comparingDouble(Row::score).reversed());
        return rows;
    }

    private static Map<Long, Tensor> upstream(Trace t) {
        Map<Long, Tensor> m = new HashMap<>();
        for (TraceEvent e : t.events()) {
            if (e instanceof TraceEvent.BackwardStep s) {
                m.put(s.node(), s.upstream());
            }
        }
        return m;
    }

    /** max|a − b| / max|b|; NaN when either is missing, was not retained, or their shapes differ. */
    static double relative(Tensor a, Tensor b) {
        if (a == null || b == null || NotRetained.is(a) || NotRetained.is(b)
                || !java.util.Arrays.equals(a.shape(), b.shape())) {
            return Double.NaN;
        }
        double[] x = a.toDoubleArray();
        double[] y = b.toDoubleArray();
        double diff = 0;
        double scale = 0;
        for (int i = 0; i < x.length; i++) {
            diff = Math.max(diff, Math.abs(x[i] - y[i]));
            scale = Math.max(scale, Math.abs(y[i]));
        }
        return scale == 0 ? diff : diff / scale;
    }
}
