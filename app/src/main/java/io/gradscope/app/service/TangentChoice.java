package io.gradscope.app.service;

import java.util.Locale;

/**
 * The tangent a run carries (forward mode, Hessian-vector products): a leaf and a direction in its
 * space, named as the command line names it: {@code ones}, {@code random} or {@code onehot:I}.
 */
public record TangentChoice(String leaf, String direction) {
    public TangentChoice {
        if (leaf == null || leaf.isBlank()) {
            throw new IllegalArgumentException("a tangent needs a leaf");
        }
        direction = direction == null || direction.isBlank() ? "ones" : direction;
    }

    /** {@code LEAF:DIRECTION} as a {@code # open:} line writes it ({@code x:ones}, {@code w:onehot:3}); null when malformed. */
    public static TangentChoice parse(String spec) {
        if (spec == null) {
            return null;
        }
        int colon = spec.indexOf(':');
        String leaf = colon < 0 ? spec : spec.substring(0, colon);
        String dir = colon < 0 ? "ones" : spec.substring(colon + 1);
        return leaf.isBlank() ? null : new TangentChoice(leaf.strip(), dir.strip());
    }

    /** The element of a one-hot direction, or -1. */
    public int element() {
        if (!direction.startsWith("onehot:")) {
            return -1;
        }
        try {
            return Integer.parseInt(direction.substring("onehot:".length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** In words: "ẋ = ones on x", "ẋ = e₃ on W". */
    public String describe() {
        String d = element() >= 0 ? "one-hot element " + element() : direction.toLowerCase(Locale.ROOT);
        return d + " on " + leaf;
    }
}
