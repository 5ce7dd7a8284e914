package io.gradscope.engine.recompute;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a training step recomputes: for each forward op of the program (numbered in the order they
 * run, from 0), the checkpoint segment whose recomputation makes its value again, or -1 when its
 * value is kept as usual. A dropped value is freed once the forward pass has no more use for it;
 * when the backward sweep first needs a value of a segment, the segment's ops run again, in order,
 * from the values it reads from outside (which are kept until then).
 *
 * <pre>{@code
 * RematPlan p = RematPlan.of(new int[] {-1, 0, 0, -1});   // ops 1 and 2 form segment 0
 * p.dropped(1);    // true
 * }</pre>
 */
public final class RematPlan {
    /** Nothing recomputed: every value kept for the backward pass as long as it is needed. */
    public static final RematPlan NONE = new RematPlan(new int[0]);

    private final int[] segmentOf;

    private RematPlan(int[] segmentOf) {
        this.segmentOf = segmentOf;
    }

    /** A plan from the segment of every op (-1: kept); ops past the end are kept. */
    public static RematPlan of(int[] segmentOf) {
        return new RematPlan(segmentOf.clone());
    }

    /** Whether op {@code k}'s value is dropped after the forward pass and recomputed. */
    public boolean dropped(int k) {
        return k >= 0 && k < segmentOf.length && segmentOf[k] >= 0;
    }

    /** The segment recomputing op {@code k}, or -1. */
    public int segmentOf(int k) {
        return k >= 0 && k < segmentOf.length ? segmentOf[k] : -1;
    }

    /** How many ops are recomputed. */
    public int droppedCount() {
        return (int) Arrays.stream(segmentOf).filter(s -> s >= 0).count();
    }

    /** The number of segments. */
    public int segments() {
        return (int) Arrays.stream(segmentOf).filter(s -> s >= 0).distinct().count();
    }

    /** The ops of each segment, by segment. */
    public Map<Integer, int[]> opsBySegment() {
        Map<Integer, int[]> out = new TreeMap<>();
        for (int k = 0; k < segmentOf.length; k++) {
            if (segmentOf[k] >= 0) {
                int[] prev = out.getOrDefault(segmentOf[k], new int[0]);
                int[] next = Arrays.copyOf(prev, prev.length + 1);
                next[prev.length] = k;
                out.put(segmentOf[k], next);
            }
        }
        return out;
    }

    /** Whether nothing is recomputed. */
    public boolean isEmpty() {
        return droppedCount() == 0;
    }

    @Override
    public String toString() {
        return "RematPlan(" + droppedCount() + " ops in " + segments() + " segments)";
    }
}
