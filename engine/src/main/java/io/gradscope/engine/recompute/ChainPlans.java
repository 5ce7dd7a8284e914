package io.gradscope.engine.recompute;

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
        List<Integer> candidates = candidates(p);
        int m = candidates.size();
        return segments(p, candidates, sizes(m, (int) Math.round(Math.sqrt(m)), false));
    }

    /** The most segment counts the {@code sqrt} policy tries (each is two meta runs of the whole step). */
    static final int MAX_COUNTS = 16;

    /**
     * The segment counts the {@code sqrt} policy tries for {@code m} candidate values: every count
     * from √m/2 to 2√m, or, when those are more than {@link #MAX_COUNTS}, that many spread evenly
     * over the range, √m among them. Each is predicted by running the step on the meta device, so
     * trying all 1.5√m of them made a 50,000-op chain run the step about 700 times (issue 49).
     */
    static List<Integer> counts(int root, int m) {
        List<Integer> out = new ArrayList<>();
        if (m < 4) {
            return out;
        }
        int lo = Math.max(2, root / 2);
        int hi = Math.max(2, 2 * root);
        if (hi - lo + 1 <= MAX_COUNTS) {
            for (int c = lo; c <= hi; c++) {
                out.add(c);
            }
            return out;
        }
        java.util.TreeSet<Integer> spread = new java.util.TreeSet<>();
        for (int i = 0; i < MAX_COUNTS - 1; i++) {
            spread.add(lo + (int) Math.round(i * (double) (hi - lo) / (MAX_COUNTS - 2)));
        }
        spread.add(Math.max(lo, Math.min(hi, root)));
        out.addAll(spread);
        return out;
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
            chain.add(k);
        }
        java.util.Collections.reverse(chain); // walked from the end (adding at the front was quadratic)
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

    /**
     * Segments of the longest chain spanning {@code sizes} of its {@code candidates} (from
     * {@link #candidates}, found once by the caller) each; the last one kept plainly.
     */
    static RematPlan segments(StepProfile p, List<Integer> candidates, int[] sizes) {
        int n = p.size();
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
        boolean[] boundary = new boolean[n];
        for (int b : boundaries) {
            boundary[b] = true;
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
            if (segOf[k] < 0 || boundary[k] || k == p.objective()) {
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
