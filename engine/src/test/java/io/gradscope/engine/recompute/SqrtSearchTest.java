package io.gradscope.engine.recompute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The {@code sqrt} policy predicts each plan it tries by running the whole step on the meta device,
 * so how many plans it tries is what its time grows with. On a 50,000-op chain it tried about 700
 * (every segment count from √m/2 to 2√m, twice), and {@code memory --remat sqrt} did not end in 300 s
 * (issue 49). The predictor here counts the plans and scores each by an independent model of a
 * chain's checkpointing: one value kept per segment plus the longest segment recomputed at once.
 */
class SqrtSearchTest {

    /** A chain: a leaf, {@code n - 2} elementwise ops each reading the one before, and a sum. */
    private static StepProfile chain(int n) {
        List<StepProfile.Op> ops = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            int[] in = k == 0 ? new int[0] : new int[] {k - 1};
            String op = k == 0 ? "param" : k == n - 1 ? "sum" : "tanh";
            ops.add(new StepProfile.Op(k, 1000 + k, op, op, in, 64, 0, k < n - 1, true, 8, -1, k + 1));
        }
        return new StepProfile(ops, n - 1);
    }

    /** Kept boundaries (the chain's ops not dropped) plus the largest segment, in values. */
    private static long cost(StepProfile p, RematPlan plan) {
        long largest = 0;
        for (int[] ops : plan.opsBySegment().values()) {
            largest = Math.max(largest, ops.length);
        }
        return (p.size() - plan.droppedCount()) + largest;
    }

    private static RematPlanner.Planned plan(StepProfile p, AtomicInteger calls) {
        return RematPlanner.plan(RematPolicy.SQRT, p, plan -> {
            calls.incrementAndGet();
            long c = plan.isEmpty() ? p.size() * 2L : cost(p, plan);
            return new RematPlanner.Prediction(c * 64, c * 64);
        });
    }

    @Test
    void aLongChainIsPlannedWithABoundedNumberOfPredictionsAndANearBestPlan() {
        StepProfile p = chain(50_000);
        AtomicInteger calls = new AtomicInteger();
        RematPlanner.Planned planned = plan(p, calls);
        assertTrue(calls.get() <= 2 * ChainPlans.MAX_COUNTS + 1, calls + " predictions");
        // Every count of the old search, scored independently: the spread search is within 5% of the best.
        List<Integer> chain = ChainPlans.candidates(p);
        int m = chain.size();
        int root = (int) Math.round(Math.sqrt(m));
        long best = Long.MAX_VALUE;
        for (int c = root / 2; c <= 2 * root; c++) {
            for (boolean tapered : new boolean[] {false, true}) {
                best = Math.min(best, cost(p, ChainPlans.segments(p, chain, ChainPlans.sizes(m, c, tapered))));
            }
        }
        long got = cost(p, planned.plan());
        assertTrue(got <= best * 1.05, "plan costs " + got + ", the best count " + best);
        assertTrue(got < p.size() / 50, "a √n plan keeps far fewer than the chain's " + p.size() + " values: " + got);
    }

    @Test
    void aShortChainStillTriesEveryCountAroundItsRoot() {
        StepProfile p = chain(66); // 65 candidates: root 8, counts 4..16, each plain and tapered
        AtomicInteger calls = new AtomicInteger();
        plan(p, calls);
        assertEquals(2 * (16 - 4 + 1), calls.get());
    }
}
