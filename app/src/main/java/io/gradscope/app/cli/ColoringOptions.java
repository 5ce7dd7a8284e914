package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.jacobian.Coloring;
import io.gradscope.engine.jacobian.ColoringChoice;
import io.gradscope.engine.jacobian.VertexOrder;
import io.gradscope.engine.sparse.Pattern;

/** Reading {@code --coloring}, {@code --order} and {@code --recolor}, and coloring a pattern by them. */
final class ColoringOptions {
    static final String ORDERS = ColoringChoice.ORDERS;
    /**
     * The most passes --recolor runs: each pass is a greedy coloring and the tabu search gets 1000
     * moves a pass; 2,000,000,000 on a 5-cycle (above its lower bound, so every pass runs) never ended.
     */
    static final int MAX_RECOLOR = 10_000;

    private ColoringOptions() {
    }

    /** The kind named by {@code --coloring}. */
    static Coloring.Kind kind(String name) {
        Coloring.Kind k = Coloring.Kind.byFlag(name);
        if (k == null) {
            throw new GradscopeException("--coloring must be column, row or star, not '" + name + "'");
        }
        return k;
    }

    /** Checks {@code --order} and {@code --recolor}. */
    static void check(String order, int recolor) {
        if (!order.equals(ColoringChoice.BEST) && VertexOrder.byFlag(order) == null) {
            throw new GradscopeException("--order must be one of " + ORDERS + ", not '" + order + "'");
        }
        if (recolor < 0 || recolor > MAX_RECOLOR) {
            throw new GradscopeException("--recolor must be between 0 and " + MAX_RECOLOR + " passes, not " + recolor);
        }
    }

    /** Greedy in the order asked for ({@code best}: every order, the fewest colors), then recolored. */
    static Coloring color(Pattern p, Coloring.Kind kind, String order, int recolor) {
        check(order, recolor);
        return new ColoringChoice(kind, order, recolor).color(p);
    }
}
