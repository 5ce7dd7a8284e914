package io.gradscope.engine.jacobian;

import java.util.Locale;

/**
 * What a Jacobian costs, known before it is built or evaluated: its size, its nonzeros (counted from
 * the compact index sets, not listed), the least colors any coloring needs (a column partition
 * needs a row's nonzeros, a row partition a column's) and so the fewest products, and a rough time
 * at {@link #FLOPS_PER_SECOND} from the forward's flops (a product costs about three forwards).
 *
 * <pre>{@code
 * JacobianEstimate e = GraphJacobian.of(y, x).estimate(Sparsity.GLOBAL, null);
 * if (e.products() > 1000) { ... ask first ... }
 * }</pre>
 */
public record JacobianEstimate(int rows, int cols, long nonzeros, int maxRowNonzeros, int maxColumnNonzeros,
        long forwardFlops) {
    /** The rate the time estimate assumes: a few cores' in float64, rough (resnet18's float32 step here runs at about 20 GFLOP/s). */
    public static final double FLOPS_PER_SECOND = 1e10;

    /** The least colors of a column partition (the most nonzeros in a row) or a row partition (in a column). */
    public int colorsLowerBound() {
        return Math.min(maxRowNonzeros, maxColumnNonzeros);
    }

    /** The fewest products a compressed evaluation can take: the colors' lower bound (dense takes min(rows, cols)). */
    public long products() {
        return Math.min(colorsLowerBound(), Math.min(rows, cols));
    }

    /** Seconds for {@link #products} products, each about three forwards' flops. */
    public double seconds() {
        return products() * 3.0 * forwardFlops / FLOPS_PER_SECOND;
    }

    /** Bytes the built pattern takes (an int per nonzero and per row). */
    public long patternBytes() {
        return 4 * (nonzeros + rows + 1);
    }

    /** {@code "1000 x 9408, 9,408,000 nonzeros (100%), colors ≥ 1000, ≥ 1000 products, about 12 s"}. */
    public String summary() {
        double all = (double) rows * cols;
        return String.format(Locale.ROOT, "%d x %d, %,d nonzeros (%.3g%%), colors >= %d, >= %d products, about %s", rows, cols,
                nonzeros, all == 0 ? 0 : 100 * nonzeros / all, colorsLowerBound(), products(), time(seconds()));
    }

    public static String time(double s) {
        if (s < 1) {
            return String.format(Locale.ROOT, "%.0f ms", s * 1000);
        }
        return s < 120 ? String.format(Locale.ROOT, "%.0f s", s) : String.format(Locale.ROOT, "%.0f min", s / 60);
    }
}
