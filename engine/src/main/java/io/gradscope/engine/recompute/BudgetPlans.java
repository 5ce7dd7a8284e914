package io.gradscope.engine.recompute;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The {@code budget=BYTES} policy's plans (see {@link RematPlanner}). */
final class BudgetPlans {
    private BudgetPlans() {
    }

    /**
     * A knapsack over the values the backward pass reads: dropping one frees its bytes (and its
     * op's saved tensors) and costs the FLOPs of recomputing it and the unsaved values it is made
     * from. The cheapest set that frees what the plain peak exceeds the budget by is chosen (a
     * min-cost knapsack on bytes in 256 steps). A long run of dropped values is recomputed at once
     * when the sweep reaches it, which moves the peak into the backward pass, so each choice is
     * also tried with its runs broken (every L+1-th value kept, L = 16, 8, 4, 2, 1); every
     * candidate's peak is predicted, and the cheapest that fits wins. While none fits, the bytes to
     * free grow by the excess. Says it fits only when a predicted peak is at most the budget.
     *
     * <p>A budget below every peak it can reach gives the lowest peak, recomputing the least for it:
     * the search above, for a budget that cannot be met, only tries dropping everything, so it also
     * plans budgets spread from the plain peak down to that lowest peak (as the memory panel's
     * trade-off curve does) and keeps the lowest peak among all, the cheapest of equal peaks. So a
     * budget of a few bytes lands on the curve's lowest point, not on a dearer plan of the same peak.
     */
    static RematPlanner.Planned plan(RematPolicy policy, StepProfile p, RematPlanner.Predictor predict) {
        Search s = search(policy, p, predict);
        if (s.planned().fits() || s.planned().plan() == RematPlan.NONE) {
            return s.planned();
        }
        long plain = predict.peak(RematPlan.NONE);
        long lowest = s.planned().predictedPeak();
        Search best = s;
        for (int j = 1; j <= LADDER; j++) {
            long b = plain - (plain - lowest) * j / LADDER;
            Search at = search(RematPolicy.budget(Math.max(1, b)), p, predict);
            if (at.planned().predictedPeak() < best.planned().predictedPeak()
                    || (at.planned().predictedPeak() == best.planned().predictedPeak() && at.cost() < best.cost())) {
                best = at;
            }
        }
        RematPlanner.Planned b = best.planned();
        return new RematPlanner.Planned(policy, b.plan(), b.predictedPeak(), b.predictedPeak() <= policy.budget());
    }

    /** Budgets a budget that cannot be met also plans (evenly from the plain peak to the lowest found). */
    static final int LADDER = 8;

    /** A plan and the FLOPs it recomputes (as the knapsack counts them). */
    private record Search(RematPlanner.Planned planned, long cost) {
    }

    private static Search search(RematPolicy policy, StepProfile p, RematPlanner.Predictor predict) {
        long budget = policy.budget();
        long plain = predict.peak(RematPlan.NONE);
        if (plain <= budget) {
            return new Search(new RematPlanner.Planned(policy, RematPlan.NONE, plain, true), 0);
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
        RematPlanner.Planned lowest = new RematPlanner.Planned(policy, RematPlan.NONE, plain, false);
        long lowestCost = 0;
        RematPlanner.Planned cheapest = null;
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
                RematPlan plan = RematPlanner.connected(p, dropped);
                long peak = predict.peak(plan);
                worst = Math.max(worst, peak);
                if (peak < lowest.predictedPeak() || (peak == lowest.predictedPeak() && cost < lowestCost)) {
                    lowest = new RematPlanner.Planned(policy, plan, peak, false);
                    lowestCost = cost;
                }
                if (peak <= budget && cost < cheapestCost) {
                    cheapest = new RematPlanner.Planned(policy, plan, peak, true);
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
        return cheapest != null ? new Search(cheapest, cheapestCost) : new Search(lowest, lowestCost);
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
}
