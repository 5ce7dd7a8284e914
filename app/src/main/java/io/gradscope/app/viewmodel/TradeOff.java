package io.gradscope.app.viewmodel;

import io.gradscope.engine.recompute.RematPlanner;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.recompute.StepProfile;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.run.StepMemory;
import io.gradscope.engine.tensor.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Peak memory against extra compute: what the engine's planner predicts (on the meta device, which
 * computes nothing) for the {@code budget} policy over a range of budgets, from the plain step's peak
 * down to the lowest peak the planner finds at all (its plan for a budget of one byte), beside the
 * named policies (none, segments, √n) and the current choice. Extra compute is the estimated FLOPs of the ops a step under the plan runs again, as the
 * engine counts them in a run of the plan on the meta device (a dropped value no backward step
 * needs is not run again). Computed off the UI thread; no JavaFX.
 *
 * @param curve the budget plans, from the largest budget to the smallest
 * @param named the plans of none, segments and sqrt
 * @param current the plan of the run's own policy
 * @param forwardFlops the estimated FLOPs of the whole forward pass (the x axis's 100%)
 */
public record TradeOff(List<Point> curve, List<Point> named, Point current, long forwardFlops) {
    /**
     * One plan: its policy, predicted peak (program bytes), the estimated FLOPs it recomputes, how
     * many ops it recomputes, and whether it fits (a budget's prediction at most the budget).
     */
    public record Point(RematPolicy policy, long peak, long flops, int ops, boolean fits) {
        /** "sqrt", "budget 40.0 KiB". */
        public String label() {
            return policy.kind() == RematPolicy.Kind.BUDGET
                    ? "budget " + io.gradscope.engine.alloc.HeapLimit.human(policy.budget()) : policy.toString();
        }
    }

    /**
     * Plans {@code budgets} budgets evenly from the plain peak down to the lowest reachable one, and the
     * named policies and {@code current}; {@code profile} (the run's forward ops) gives the forward pass's FLOPs.
     * Stops once {@code cancelled} says so (a {@link java.util.concurrent.CancellationException}).
     */
    public static TradeOff of(Program program, RunOptions options, StepProfile profile, RematPolicy current, int budgets,
                              BooleanSupplier cancelled) {
        return of(program, options, profile, current, budgets, cancelled, (done, total) -> { });
    }

    /** Told after each plan: {@code done} of {@code total} (the named policies, the lowest peak's and the budgets'). */
    @FunctionalInterface
    public interface Plans {
        void done(int done, int total);
    }

    /**
     * The same, telling {@code plans} after each plan; once {@code cancelled} says so, a {@link
     * java.util.concurrent.CancellationException} is thrown at the next plan (nothing half-made is returned).
     */
    public static TradeOff of(Program program, RunOptions options, StepProfile profile, RematPolicy current, int budgets,
                              BooleanSupplier cancelled, Plans plans) {
        int plansTotal = 4 + budgets;
        int[] done = {0};
        Runnable planned = () -> {
            if (cancelled.getAsBoolean()) {
                throw new java.util.concurrent.CancellationException("trade-off curve cancelled");
            }
            plans.done(++done[0], plansTotal);
        };
        // Asked at every statement of the planner's meta runs too: one plan of a long program is hundreds of them.
        Program.Progress meta = (phase, d, t) -> {
            if (cancelled.getAsBoolean()) {
                throw new java.util.concurrent.CancellationException("trade-off curve cancelled");
            }
        };
        List<Point> named = new ArrayList<>();
        for (RematPolicy p : List.of(RematPolicy.NONE, RematPolicy.SEGMENTS, RematPolicy.SQRT)) {
            named.add(point(program, options, p, meta));
            planned.run();
        }
        long plain = named.get(0).peak();
        long lowest = Math.min(plain, program.plan(options, RematPolicy.budget(1), true, meta).predictedPeak());
        planned.run();
        List<Point> curve = new ArrayList<>();
        for (int i = 0; i < budgets; i++) {
            long b = budgets == 1 ? plain : plain - (plain - lowest) * i / (budgets - 1);
            curve.add(point(program, options, RematPolicy.budget(Math.max(1, b)), meta));
            planned.run();
        }
        Point now = named.stream().filter(p -> p.policy().equals(current)).findFirst()
                .orElseGet(() -> point(program, options, current, meta));
        long total = 0;
        for (StepProfile.Op op : profile.ops()) {
            total += op.flops();
        }
        return new TradeOff(List.copyOf(curve), List.copyOf(named), now, total);
    }

    /** The planner's plan for {@code policy}, priced by a step under it on the meta device. */
    public static Point point(Program program, RunOptions options, RematPolicy policy) {
        return point(program, options, policy, (phase, done, total) -> { });
    }

    /** The same, telling {@code meta} after every statement and step of the meta runs (it may throw to stop). */
    static Point point(Program program, RunOptions options, RematPolicy policy, Program.Progress meta) {
        RematPlanner.Planned planned = program.plan(options, policy, true, meta);
        RunOptions onMeta = new RunOptions(options.dtype(), options.seed(), options.inputs(), Device.META);
        StepMemory m = program.run(onMeta, planned, false, meta).memory();
        return new Point(policy, planned.predictedPeak(), m.recomputedFlops(), m.recomputedOps(), planned.fits());
    }

    /** The largest predicted peak of any point (the y axis's top). */
    public long maxPeak() {
        long m = current.peak();
        for (Point p : curve) {
            m = Math.max(m, p.peak());
        }
        for (Point p : named) {
            m = Math.max(m, p.peak());
        }
        return m;
    }

    /** The most extra FLOPs of any point (the x axis's end). */
    public long maxFlops() {
        long m = current.flops();
        for (Point p : curve) {
            m = Math.max(m, p.flops());
        }
        for (Point p : named) {
            m = Math.max(m, p.flops());
        }
        return m;
    }
}
