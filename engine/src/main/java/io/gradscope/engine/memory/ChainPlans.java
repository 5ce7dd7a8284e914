package io.gradscope.engine.memory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The {@code sqrt} policy's plans: segments along the longest chain of a step (see {@link RematPlanner}). */
final class ChainPlans {
    private ChainPlans() {
    }

    /**
     * About √n segments along the longest chain of ops (Chen et al. 2016): the chain's values that
     * the backward pass reads anyway are the candidate boundaries; every ⌈m/√m⌉-th is kept and the
     * ops between two kept ones are dropped, except values read past their segment. The last
     * segment is not dropped: the backward pass would recompute it at once (as PyTorch's
     * checkpoint_sequential runs its last segment plainly).
     */
    static RematPlan uniform(StepProfile p) {
        int m = candidates(p).size();
        return segments(p, sizes(m, (int) Math.round(Math.sqrt(m)), false));
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
    static List<Integer> candidates(StepProfile p) {
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
    static RematPlan segments(StepProfile p, int[] sizes) {
        int n = p.size();
        List<Integer> candidates = candidates(p);
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
        List<List<Integer>> readers = RematPlanner.consumers(p);
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
        return RematPlanner.connected(p, dropped);
    }
}
