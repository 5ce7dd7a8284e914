package io.gradscope.engine.alloc;

import java.util.Locale;

/**
 * Which values and gradients a debugging run keeps for the inspector once the training step is
 * done with them (see Note [Held for inspection] in {@link RefCounts}):
 * <ul>
 * <li>{@code ALL}: every one (the trace shows each value and gradient as it was made);</li>
 * <li>{@code NONE}: none beyond what a plain training step keeps (the leaves' values, the leaves'
 * gradients, the objective); the others are recomputed when inspected ({@code run.Replay});</li>
 * <li>{@code FIT}: as many as fit in {@link #budget()} bytes; when one more does not fit, the
 * largest kept ones are released first (a large value costs the most to keep, and recomputing one
 * value costs a replay whatever its size), so the most values stay at hand.</li>
 * </ul>
 * A value that is not kept is shown in the trace by a placeholder of its shape and dtype with no
 * data ({@code trace.NotRetained}).
 *
 * <pre>{@code
 * Retention r = Retention.of(Retention.Kind.FIT, HeapLimit.bytes(), planned.predictedPeak());  // the default budget
 * }</pre>
 */
public record Retention(Kind kind, long budget) {
    /** What to keep. */
    public enum Kind { ALL, FIT, NONE }

    /** Keep every value and gradient (the default of a program run in the debugger). */
    public static final Retention ALL = new Retention(Kind.ALL, Long.MAX_VALUE);
    /** Keep nothing beyond what a training step keeps. */
    public static final Retention NONE = new Retention(Kind.NONE, 0);

    public Retention {
        if (budget < 0) {
            throw new IllegalArgumentException("negative budget " + budget);
        }
    }

    /** Keep what fits in {@code budget} bytes, releasing the largest first. */
    public static Retention fit(long budget) {
        return new Retention(Kind.FIT, budget);
    }

    /**
     * The budget {@code fit} gets by default: half the heap's limit less what the plain training
     * step is predicted to need at its peak ({@code stepPeak}), at most a quarter of the limit (a
     * quarter when the peak is not known: -1), never below zero. The other half is the garbage
     * collector's headroom (G1 keeps large arrays in whole regions and collects them late) and the
     * app's own (an imported model's weights, the trace, the layout).
     */
    public static long defaultBudget(long heapLimit, long stepPeak) {
        long quarter = heapLimit / 4;
        if (stepPeak < 0) {
            return quarter;
        }
        return Math.max(0, Math.min(quarter, heapLimit / 2 - stepPeak));
    }

    /** The retention of kind {@code k}, a {@code FIT} one with {@link #defaultBudget}. */
    public static Retention of(Kind k, long heapLimit, long stepPeak) {
        return switch (k) {
            case ALL -> ALL;
            case NONE -> NONE;
            case FIT -> fit(defaultBudget(heapLimit, stepPeak));
        };
    }

    /** Whether every value is kept. */
    public boolean keepsAll() {
        return kind == Kind.ALL;
    }

    /** "all", "fit (1.2 GiB)", "none". */
    public String describe() {
        return kind == Kind.FIT ? "fit (" + HeapLimit.human(budget) + ")" : kind.name().toLowerCase(Locale.ROOT);
    }
}
