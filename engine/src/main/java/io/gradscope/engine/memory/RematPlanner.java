package io.gradscope.engine.memory;

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
                int m = sqrtCandidates(profile).size();
                int root = (int) Math.round(Math.sqrt(m));
                RematPlan best = RematPlan.NONE;
                Prediction bestP = null;
                int bestC = 0;
                for (int c = Math.max(2, root / 2); c <= Math.max(2, 2 * root) && m >= 4; c++) {
                    for (boolean tapered : new boolean[] {false, true}) {
                        RematPlan p = sqrt(profile, sizes(m, c, tapered));
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
            case BUDGET -> budget(policy, profile, predict);
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

    /**
     * About √n segments along the longest chain of ops (Chen et al. 2016): the chain's values that
     * the backward pass reads anyway are the candidate boundaries; every ⌈m/√m⌉-th is kept and the
     * ops between two kept ones are dropped, except values read past their segment. The last
     * segment is not dropped: the backward pass would recompute it at once (as PyTorch's
     * checkpoint_sequential runs its last segment plainly).
     */
    static RematPlan sqrt(StepProfile p) {
        int m = sqrtCandidates(p).size();
        return sqrt(p, sizes(m, (int) Math.round(Math.sqrt(m)), false));
    }

    /**
     * How many of the chain's {@code m} candidate values each of {@code c} segments spans: equal
     * shares, or tapered (each one shorter than the one before, by one). While the backward pass
     * recomputes segment j, the inputs of segments 0..j are kept, so a segment further down the
     * chain can be longer for the same peak: tapered sizes balance the recomputations' peaks (and
     * leave a short last segment, which the forward pass keeps whole).
     */
    static int[] sizes(int m, int c, boolean tapered) {
        int[] s = new int[c];
        if (!tapered) {
            int size = (m + c - 1) / c;
            for (int j = 0; j < c; j++) {
                s[j] = Math.max(0, Math.min(size, m - j * size));
            }
            return s;
        }
        int a = 1;
        while (taperedSum(a, c) < m) {
            a++;
        }
        int left = m;
        for (int j = 0; j < c; j++) {
            s[j] = Math.min(left, Math.max(1, a - j));
            left -= s[j];
        }
        return s;
    }

    private static long taperedSum(int a, int c) {
        long sum = 0;
        for (int j = 0; j < c; j++) {
            sum += Math.max(1, a - j);
        }
        return sum;
    }

    /** The values along the longest chain the plan may keep as segment boundaries. */
    static List<Integer> sqrtCandidates(StepProfile p) {
        int n = p.size();
        if (n == 0) {
            return List.of();
        }
        int[] depth = new int[n];
        int[] pred = new int[n];
        Arrays.fill(pred, -1);
        int end = p.objective() >= 0 ? p.objective() : n - 1;
        for (StepProfile.Op op : p.ops()) {
            depth[op.index()] = 1;
            for (int in : op.inputs()) {
                if (in >= 0 && depth[in] + 1 > depth[op.index()]) {
                    depth[op.index()] = depth[in] + 1;
                    pred[op.index()] = in;
                }
            }
        }
        List<Integer> chain = new ArrayList<>();
        for (int k = end; k >= 0; k = pred[k]) {
            chain.add(0, k);
        }
        List<Integer> candidates = new ArrayList<>();
        for (int k : chain) {
            if (p.op(k).readByBackward() && p.op(k).bytes() > 0 && k != end) {
                candidates.add(k);
            }
        }
        if (candidates.size() < 4) {
            candidates.clear();
            for (int k : chain) {
                if (p.op(k).bytes() > 0 && k != end) {
                    candidates.add(k);
                }
            }
        }
        return candidates;
    }

    /** Segments of the longest chain spanning {@code sizes} candidate values each (the last one kept plainly). */
    static RematPlan sqrt(StepProfile p, int[] sizes) {
        int n = p.size();
        List<Integer> candidates = sqrtCandidates(p);
        int m = candidates.size();
        if (m < 4 || sizes.length < 2) {
            return RematPlan.NONE;
        }
        List<Integer> boundaries = new ArrayList<>();
        int at = -1;
        for (int j = 0; j < sizes.length - 1; j++) {
            at += sizes[j];
            if (sizes[j] > 0 && at < m - 1) {
                boundaries.add(candidates.get(at));
            }
        }
        int[] segOf = new int[n];
        Arrays.fill(segOf, -1);
        int from = 0;
        for (int s = 0; s < boundaries.size(); s++) {
            for (int k = from; k <= boundaries.get(s); k++) {
                segOf[k] = s;
            }
            from = boundaries.get(s) + 1;
        }
        List<List<Integer>> readers = consumers(p);
        boolean[] dropped = new boolean[n];
        for (int k = 0; k < n; k++) {
            if (segOf[k] < 0 || boundaries.contains(k) || k == p.objective()) {
                continue;
            }
            boolean inside = true;
            for (int r : readers.get(k)) {
                inside &= segOf[r] == segOf[k];
            }
            dropped[k] = inside;
        }
        return connected(p, dropped);
    }

    /**
     * A knapsack over the values the backward pass reads: dropping one frees its bytes (and its
     * op's saved tensors) and costs the FLOPs of recomputing it and the unsaved values it is made
     * from. The cheapest set that frees what the plain peak exceeds the budget by is chosen (a
     * min-cost knapsack on bytes in 256 steps). A long run of dropped values is recomputed at once
     * when the sweep reaches it, which moves the peak into the backward pass, so each choice is
     * also tried with its runs broken (every L+1-th value kept, L = 16, 8, 4, 2, 1); every
     * candidate's peak is predicted, and the cheapest that fits wins. While none fits, the bytes to
     * free grow by the excess. Says it fits only when a predicted peak is at most the budget;
     * otherwise gives the lowest peak it found.
     */
    static Planned budget(RematPolicy policy, StepProfile p, Predictor predict) {
        long budget = policy.budget();
        long plain = predict.peak(RematPlan.NONE);
        if (plain <= budget) {
            return new Planned(policy, RematPlan.NONE, plain, true);
        }
        List<int[]> closures = new ArrayList<>();
        List<long[]> items = new ArrayList<>(); // {benefit, cost}, in program order
        for (StepProfile.Op op : p.ops()) {
            long benefit = (op.readByBackward() ? op.bytes() : 0) + op.savedBytes();
            if (benefit <= 0 || op.index() == p.objective() || !op.recorded()) {
                continue;
            }
            List<Integer> closure = new ArrayList<>();
            closure(p, op.index(), closure);
            long cost = 0;
            for (int k : closure) {
                cost += p.op(k).flops();
            }
            closures.add(closure.stream().mapToInt(Integer::intValue).toArray());
            items.add(new long[] {benefit, cost});
        }
        Planned lowest = new Planned(policy, RematPlan.NONE, plain, false);
        Planned cheapest = null;
        long cheapestCost = Long.MAX_VALUE;
        long need = plain - budget;
        for (int round = 0; round < 12 && !items.isEmpty() && cheapest == null; round++) {
            boolean[] chosen = knapsack(items, need);
            long worst = 0;
            for (int run : new int[] {Integer.MAX_VALUE, 16, 8, 4, 2, 1}) {
                boolean[] c = breakRuns(chosen, run);
                boolean[] dropped = new boolean[p.size()];
                long cost = 0;
                for (int i = 0; i < c.length; i++) {
                    if (c[i]) {
                        for (int k : closures.get(i)) {
                            if (!dropped[k]) {
                                dropped[k] = true;
                                cost += p.op(k).flops();
                            }
                        }
                    }
                }
                RematPlan plan = connected(p, dropped);
                long peak = predict.peak(plan);
                worst = Math.max(worst, peak);
                if (peak < lowest.predictedPeak()) {
                    lowest = new Planned(policy, plan, peak, false);
                }
                if (peak <= budget && cost < cheapestCost) {
                    cheapest = new Planned(policy, plan, peak, true);
                    cheapestCost = cost;
                }
            }
            boolean all = true;
            for (boolean x : chosen) {
                all &= x;
            }
            if (all) {
                break;
            }
            need += Math.max(lowest.predictedPeak() - budget, Math.max(1, need / 4));
        }
        return cheapest != null ? cheapest : lowest;
    }

    /** {@code chosen} with every run of more than {@code run} chosen items broken: each (run+1)-th is not chosen. */
    private static boolean[] breakRuns(boolean[] chosen, int run) {
        boolean[] out = chosen.clone();
        int length = 0;
        for (int i = 0; i < out.length; i++) {
            if (!out[i]) {
                length = 0;
            } else if (++length > run) {
                out[i] = false;
                length = 0;
            }
        }
        return out;
    }

    /** Op {@code k} and the ops making the unsaved values it reads, back to saved values and leaves. */
    private static void closure(StepProfile p, int k, List<Integer> out) {
        if (out.contains(k)) {
            return;
        }
        out.add(k);
        for (int in : p.op(k).inputs()) {
            if (in >= 0 && !p.op(in).readByBackward() && in != p.objective()) {
                closure(p, in, out);
            }
        }
    }

    /**
     * The cheapest items whose benefits add up to at least {@code need}: a min-cost knapsack over
     * benefits counted in 256 steps of {@code need} (a table of items × 257 states, walked back).
     * All of them when even that is not enough.
     */
    private static boolean[] knapsack(List<long[]> items, long need) {
        int steps = 256;
        return backtrack(items, Math.max(1.0, need / (double) steps), steps);
    }

    private static boolean[] backtrack(List<long[]> items, double unit, int steps) {
        int n = items.size();
        long[][] dp = new long[n + 1][steps + 1];
        for (long[] row : dp) {
            Arrays.fill(row, Long.MAX_VALUE);
        }
        dp[0][0] = 0;
        int[] units = new int[n];
        for (int i = 0; i < n; i++) {
            units[i] = (int) Math.min(steps, Math.floor(items.get(i)[0] / unit));
            long c = items.get(i)[1];
            for (int b = 0; b <= steps; b++) {
                dp[i + 1][b] = Math.min(dp[i + 1][b], dp[i][b]);
                if (dp[i][b] != Long.MAX_VALUE) {
                    int to = Math.min(steps, b + units[i]);
                    dp[i + 1][to] = Math.min(dp[i + 1][to], dp[i][b] + c);
                }
            }
        }
        boolean[] chosen = new boolean[n];
        if (dp[n][steps] == Long.MAX_VALUE) {
            Arrays.fill(chosen, true);
            return chosen;
        }
        int b = steps;
        for (int i = n; i > 0; i--) {
            if (dp[i][b] == dp[i - 1][b]) {
                continue;
            }
            chosen[i - 1] = true;
            long c = items.get(i - 1)[1];
            int from = -1;
            for (int x = 0; x <= steps; x++) {
                if (dp[i - 1][x] != Long.MAX_VALUE && Math.min(steps, x + units[i - 1]) == b && dp[i - 1][x] + c == dp[i][b]) {
                    from = x;
                    break;
                }
            }
            b = from;
        }
        return chosen;
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
