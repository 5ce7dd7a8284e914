package io.gradscope.engine.run;

import io.gradscope.engine.alloc.MemoryTimeline;
import io.gradscope.engine.recompute.RematPlanner;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.StorageRole;
import io.gradscope.engine.trace.TraceGraph;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One program's memory under a remat policy, measured as a plain training step (values not
 * retained) beside its prediction and beside the plain run: the peak by category, the tensors live
 * at the peak with their statements, what was recomputed, and the step's time with and without
 * recomputation (medians).
 *
 * <pre>{@code
 * MemoryReport r = MemoryReport.measure(program, options, RematPolicy.SQRT, 3);
 * r.peakBytes() == r.liveAtPeak().stream().mapToLong(MemoryReport.LiveTensor::bytes).sum();   // true
 * }</pre>
 *
 * @param policy the policy measured
 * @param device the device it ran on
 * @param peakBytes the program's active bytes at its peak (what is held for inspection excluded)
 * @param predictedPeak the peak the plan predicted (a run on the meta device)
 * @param fits for a budget, whether the prediction fits under it (true otherwise)
 * @param peakByCategory the active bytes at the peak, by category (parameter, activation, gradient, temporary)
 * @param peakReserved the most bytes the allocator held
 * @param maxActivations the most activation bytes at any moment
 * @param maxWorking the most working bytes at once (activations, temporaries, gradients on their
 *     way: everything but parameters and the gradients that outlive the step)
 * @param plainPeak the plain run's peak; {@code plainMaxActivations} its most activation bytes,
 *     {@code plainMaxWorking} its most working bytes
 * @param liveAtPeak every tensor live at the peak, largest first
 * @param recomputedOps forward ops run again; {@code recomputedFlops} their estimated FLOPs
 * @param segments the plan's segments
 * @param plainMs the plain step's time; {@code rematMs} with recomputation (medians over the runs)
 */
public record MemoryReport(RematPolicy policy, String device, long peakBytes, long predictedPeak, boolean fits,
                           Map<MemoryCategory, Long> peakByCategory, long peakReserved, long maxActivations, long maxWorking,
                           long plainPeak, long plainMaxActivations, long plainMaxWorking, List<LiveTensor> liveAtPeak, int recomputedOps, long recomputedFlops,
                           int segments, double plainMs, double rematMs) {

    /**
     * A tensor live at the peak: the value it belongs to ({@code node}, its statement's {@code name}
     * or op, {@code line}), what it is to it, and its size.
     */
    public record LiveTensor(long node, String name, String op, int line, StorageRole role, MemoryCategory category, int[] shape,
                             long bytes) {
    }

    /**
     * Plans {@code policy}, then runs the step {@code runs} times with it and as many times plainly,
     * in pairs whose order alternates (plain first, then recomputing first), after as many untimed
     * pairs (one when {@code runs} is 1: a single pair, timed).
     *
     * <p>Note [Fair pairs]: a new user saw "0.73x" for a plan that recomputes nothing (the two runs
     * identical): with the plain run always first, it paid for what the pair before left behind (the
     * young generation full of its garbage) and, early on, for the JIT's work; three warm-up pairs
     * were not enough to hide it. The order now alternates, so such effects fall on both sides alike,
     * and a collection before each timed run starts both with an empty young generation.
     */
    public static MemoryReport measure(Program program, RunOptions options, RematPolicy policy, int runs) {
        RematPlanner.Planned planned = program.plan(options, policy, true);
        MemoryOptions plainOptions = new MemoryOptions(RematPolicy.NONE, false);
        int n = Math.max(1, runs);
        double[] plainTimes = new double[n];
        double[] rematTimes = new double[n];
        ProgramRun plain = null;
        ProgramRun remat = null;
        for (int i = n > 1 ? -n : 0; i < n; i++) {
            boolean plainFirst = Math.floorMod(i, 2) == 0;
            for (int k = 0; k < 2; k++) {
                boolean isPlain = plainFirst == (k == 0);
                if (n > 1) {
                    System.gc();
                }
                long t0 = System.nanoTime();
                ProgramRun r = isPlain ? program.run(options, plainOptions, (a, b, c) -> { })
                        : program.step(options, planned, false, (a, b, c) -> { });
                double ms = (System.nanoTime() - t0) / 1e6;
                if (isPlain) {
                    plain = r;
                } else {
                    remat = r;
                }
                if (i >= 0) {
                    (isPlain ? plainTimes : rematTimes)[i] = ms;
                }
            }
        }
        MemoryTimeline p = plain.timeline();
        MemoryTimeline m = remat.timeline();
        TraceGraph graph = TraceGraph.of(remat.trace());
        List<LiveTensor> live = new ArrayList<>();
        for (MemoryTimeline.Live l : m.liveAtPeak()) {
            int v = graph.indexOf(l.node());
            TraceGraph.Vertex vx = v < 0 ? null : graph.vertex(v);
            live.add(new LiveTensor(l.node(), vx == null ? null : vx.name(), vx == null ? null : vx.op(), vx == null ? 0 : vx.line(),
                    l.role(), l.category(), l.shape(), l.bytes()));
        }
        return new MemoryReport(policy, options.device().toString(), m.peakBytes(), planned.predictedPeak(), planned.fits(),
                m.peakByCategory(), m.peakReserved(), m.maxOf(MemoryCategory.ACTIVATION), m.maxWorkingBytes(), p.peakBytes(),
                p.maxOf(MemoryCategory.ACTIVATION), p.maxWorkingBytes(), List.copyOf(live), remat.memory().recomputedOps(),
                remat.memory().recomputedFlops(), planned.plan().segments(), median(plainTimes), median(rematTimes));
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
