package io.gradscope.engine.recompute;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns a {@link RematPolicy} into a {@link RematPlan} for a step's {@link StepProfile}, with the
 * peak it predicts. Predictions come from a {@link Predictor}: the program run on the meta device
 * with the plan, which allocates and frees exactly as a CPU run does, so the predicted peak of a
 * CPU run is its measured peak.
 *
 * <p>Note [Remat plans]: a plan drops a set of values; its segments are the connected groups of the
 * dropped values' ops (a dropped op reading another dropped value joins its group), so a segment
 * recomputed from its kept inputs makes every dropped value it needs. A kept op that reads a
 * dropped value in its VJP gets the recomputed one.
 */
public final class RematPlanner {
    private RematPlanner() {
    }

    /**
     * The program's memory when run with a plan: its peak (active bytes, what is held for inspection
     * excluded) and the most activation bytes at any moment.
     */
    @FunctionalInterface
    public interface Predictor {
        Prediction predict(RematPlan plan);

        default long peak(RematPlan plan) {
            return predict(plan).peak();
        }
    }

    /** A predicted peak, and the most activation bytes at any moment. */
    public record Prediction(long peak, long activations) {
    }

    /** A plan, its predicted peak, and for a budget whether the prediction fits under it. */
    public record Planned(RematPolicy policy, RematPlan plan, long predictedPeak, boolean fits) {
    }

    /** The plan {@code policy} gives for {@code profile}, with its predicted peak. */
    public static Planned plan(RematPolicy policy, StepProfile profile, Predictor predict) {
        return switch (policy.kind()) {
            case NONE -> new Planned(policy, RematPlan.NONE, predict.peak(RematPlan.NONE), true);
            case SEGMENTS -> {
                RematPlan p = segments(profile);
                yield new Planned(policy, p, predict.peak(p), true);
            }
            case SQRT -> {
                // Among segment counts around √m, the one whose activations peak lowest (ties: nearest √m).
                List<Integer> chain = ChainPlans.candidates(profile);
                int m = chain.size();
                int root = (int) Math.round(Math.sqrt(m));
                RematPlan best = RematPlan.NONE;
                Prediction bestP = null;
                int bestC = 0;
                for (int c : ChainPlans.counts(root, m)) {
                    for (boolean tapered : new boolean[] {false, true}) {
                        RematPlan p = ChainPlans.segments(profile, chain, ChainPlans.sizes(m, c, tapered));
                        Prediction at = predict.predict(p);
                        if (bestP == null || at.activations() < bestP.activations()
                                || (at.activations() == bestP.activations() && Math.abs(c - root) < Math.abs(bestC - root))) {
                            best = p;
                            bestP = at;
                            bestC = c;
                        }
                    }
                }
                yield new Planned(policy, best, bestP == null ? predict.peak(best) : bestP.peak(), true);
            }
            case BUDGET -> BudgetPlans.plan(policy, profile, predict);
        };
    }

    /** Who reads each op's value (other ops), in order. */
    static List<List<Integer>> consumers(StepProfile p) {
        List<List<Integer>> out = new ArrayList<>();
        for (int k = 0; k < p.size(); k++) {
            out.add(new ArrayList<>());
        }
        for (StepProfile.Op op : p.ops()) {
            for (int in : op.inputs()) {
                if (in >= 0) {
                    out.get(in).add(op.index());
                }
            }
        }
        return out;
    }

    /** The program's {@code with checkpoint()} blocks: inside each, every value not read after it. */
    static RematPlan segments(StepProfile p) {
        List<List<Integer>> readers = consumers(p);
        boolean[] dropped = new boolean[p.size()];
        for (StepProfile.Op op : p.ops()) {
            int b = op.block();
            if (b < 0 || op.index() == p.objective()) {
                continue;
            }
            boolean inside = true;
            for (int r : readers.get(op.index())) {
                inside &= p.op(r).block() == b;
            }
            dropped[op.index()] = inside;
        }
        return connected(p, dropped);
    }

    /** Numbers the connected groups of dropped ops (edges: an op reading another's value) as segments. */
    public static RematPlan connected(StepProfile p, boolean[] dropped) {
        int n = p.size();
        int[] parent = new int[n];
        for (int i = 0; i < n; i++) {
            parent[i] = i;
        }
        for (StepProfile.Op op : p.ops()) {
            if (!dropped[op.index()]) {
                continue;
            }
            for (int in : op.inputs()) {
                if (in >= 0 && dropped[in]) {
                    union(parent, in, op.index());
                }
            }
        }
        int[] segOf = new int[n];
        Arrays.fill(segOf, -1);
        int[] idOfRoot = new int[n];
        Arrays.fill(idOfRoot, -1);
        int next = 0;
        for (int k = 0; k < n; k++) {
            if (dropped[k]) {
                int r = find(parent, k);
                if (idOfRoot[r] < 0) {
                    idOfRoot[r] = next++;
                }
                segOf[k] = idOfRoot[r];
            }
        }
        return RematPlan.of(segOf);
    }

    private static int find(int[] parent, int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    private static void union(int[] parent, int a, int b) {
        parent[find(parent, a)] = find(parent, b);
    }
}
