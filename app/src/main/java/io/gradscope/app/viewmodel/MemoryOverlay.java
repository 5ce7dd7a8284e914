package io.gradscope.app.viewmodel;

import io.gradscope.engine.alloc.MemoryTimeline;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.trace.Trace;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * A second run's memory drawn over the panel's run, on the panel's axis: the second run's program
 * bytes (active bytes, what is held for inspection excluded) after each of its events, placed at an
 * x in the first run's events. The two traces are lined up at their forward ops and backward steps
 * (the k-th of one at the k-th of the other, when both have as many); what lies between two such
 * anchors (allocations, recomputed ops) is spread evenly between them. No JavaFX.
 *
 * @param policy the second run's policy
 * @param x for each of the second run's samples, its place on the first run's event axis
 * @param bytes the second run's program bytes after that sample
 * @param peak the second run's peak (program bytes)
 * @param peakX where its peak is on the first run's axis
 */
public record MemoryOverlay(RematPolicy policy, double[] x, long[] bytes, long peak, double peakX) {

    /** {@code other}'s memory placed on {@code onto}'s event axis. */
    public static MemoryOverlay of(RematPolicy policy, ProgramRun other, ProgramRun onto) {
        double[] axis = axis(other.trace(), onto.trace());
        MemoryTimeline t = other.timeline();
        List<MemoryTimeline.Sample> s = t.samples();
        double[] x = new double[s.size()];
        long[] bytes = new long[s.size()];
        for (int i = 0; i < s.size(); i++) {
            x[i] = axis[Math.max(0, Math.min(axis.length - 1, s.get(i).event()))];
            bytes[i] = s.get(i).program();
        }
        int pe = t.peakEvent();
        return new MemoryOverlay(policy, x, bytes, t.peakBytes(), pe < 0 ? 0 : axis[Math.min(axis.length - 1, pe)]);
    }

    /** For each event of {@code from}, its place among {@code to}'s events. */
    static double[] axis(Trace from, Trace to) {
        int n = from.events().size();
        int m = to.events().size();
        double[] out = new double[Math.max(1, n)];
        List<Integer> a = anchors(from);
        List<Integer> b = anchors(to);
        if (a.size() != b.size() || !sameKinds(from, a, to, b)) {
            // Not the same steps: proportionally.
            for (int e = 0; e < n; e++) {
                out[e] = n <= 1 ? 0 : (double) e * (m - 1) / (n - 1);
            }
            return out;
        }
        // Piecewise linear between matched anchors, with the two ends matched too.
        List<double[]> pairs = new ArrayList<>();
        pairs.add(new double[] {-1, -1});
        for (int k = 0; k < a.size(); k++) {
            pairs.add(new double[] {a.get(k), b.get(k)});
        }
        pairs.add(new double[] {n, m});
        int p = 0;
        for (int e = 0; e < n; e++) {
            while (pairs.get(p + 1)[0] < e) {
                p++;
            }
            double[] lo = pairs.get(p);
            double[] hi = pairs.get(p + 1);
            double f = hi[0] == lo[0] ? 0 : (e - lo[0]) / (hi[0] - lo[0]);
            out[e] = Math.max(0, Math.min(m - 1, lo[1] + f * (hi[1] - lo[1])));
        }
        return out;
    }

    /** The events that are a step of the sweep in both runs: leaves, forward ops, backward steps. */
    private static List<Integer> anchors(Trace t) {
        List<Integer> out = new ArrayList<>();
        List<TraceEvent> ev = t.events();
        for (int i = 0; i < ev.size(); i++) {
            TraceEvent e = ev.get(i);
            if (e instanceof TraceEvent.Leaf || e instanceof TraceEvent.OpForward || e instanceof TraceEvent.BackwardStep) {
                out.add(i);
            }
        }
        return out;
    }

    private static boolean sameKinds(Trace t1, List<Integer> a, Trace t2, List<Integer> b) {
        for (int k = 0; k < a.size(); k++) {
            if (t1.events().get(a.get(k)).getClass() != t2.events().get(b.get(k)).getClass()) {
                return false;
            }
        }
        return true;
    }
}
