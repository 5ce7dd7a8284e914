package io.gradscope.engine.jacobian;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.sparse.Pattern;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How to color a Jacobian's pattern for compressed evaluation: the partition ({@code kind}; null
 * takes whichever of columns and rows needs fewer colors, rows on a tie), greedy's vertex order
 * ({@code order}: a {@link VertexOrder} flag, or {@link #BEST} for every order, keeping the fewest
 * colors) and the passes that try to beat greedy ({@code recolor}, 0 for plain greedy). The one
 * place this choice is made: the command line and the app both color through it.
 *
 * <pre>{@code
 * Coloring c = ColoringChoice.CHEAPER.color(pattern);          // columns or rows, best order, 10 passes
 * Coloring s = new ColoringChoice(Coloring.Kind.STAR, "natural", 0).color(hessianPattern);
 * }</pre>
 */
public record ColoringChoice(Coloring.Kind kind, String order, int recolor) {
    /** Every vertex order tried, the fewest colors kept. */
    public static final String BEST = "best";
    /** The vertex orders by flag, and {@link #BEST}: "natural, largest-first, ... or best". */
    public static final String ORDERS = Arrays.stream(VertexOrder.values()).map(VertexOrder::flag)
            .collect(Collectors.joining(", ")) + " or " + BEST;
    /** Columns or rows, whichever needs fewer colors; every order; 10 passes of recoloring. */
    public static final ColoringChoice CHEAPER = new ColoringChoice(null, BEST, 10);

    /** Checks the order and the passes (a {@link GradscopeException} names the bad one). */
    public ColoringChoice {
        if (order == null) {
            order = BEST;
        }
        if (!order.equals(BEST) && VertexOrder.byFlag(order) == null) {
            throw new GradscopeException("the vertex order must be one of " + ORDERS + ", not '" + order + "'");
        }
        if (recolor < 0) {
            throw new GradscopeException("recoloring takes 0 or more passes, not " + recolor);
        }
    }

    /** The same choice with the partition {@code k} (null: the cheaper of columns and rows). */
    public ColoringChoice withKind(Coloring.Kind k) {
        return new ColoringChoice(k, order, recolor);
    }

    /** Colors {@code p} as chosen. */
    public Coloring color(Pattern p) {
        return kind != null ? color(p, kind) : cheaper(p);
    }

    /** Greedy in the order chosen ({@link #BEST}: every order, the fewest colors), then recolored. */
    public Coloring color(Pattern p, Coloring.Kind k) {
        Coloring c = order.equals(BEST) ? Colorings.best(p, k) : Colorings.color(p, k, VertexOrder.byFlag(order));
        return recolor > 0 ? Colorings.recolor(p, c, recolor) : c;
    }

    /** The partition of columns or rows with fewer colors (rows on a tie). */
    private Coloring cheaper(Pattern p) {
        // The lower bounds first: a partition whose bound is far above the other's is not worth coloring
        // (its conflict graph can be huge: every pair of columns in a dense row).
        Coloring.Kind first = p.maxRowCount() < p.maxColumnCount() ? Coloring.Kind.COLUMN : Coloring.Kind.ROW;
        Coloring.Kind other = first == Coloring.Kind.ROW ? Coloring.Kind.COLUMN : Coloring.Kind.ROW;
        Coloring best = color(p, first);
        if (Colorings.lowerBound(p, other) < best.count()) {
            try {
                Coloring c = color(p, other);
                if (c.count() < best.count() || (c.count() == best.count() && c.kind() == Coloring.Kind.ROW)) {
                    best = c;
                }
            } catch (GradscopeException tooLarge) {
                // Its conflict graph is too large to build: keep the partition found.
            }
        }
        return best;
    }
}
