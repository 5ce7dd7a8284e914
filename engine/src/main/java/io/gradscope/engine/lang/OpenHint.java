package io.gradscope.engine.lang;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a program asks to be shown when opened: a comment line {@code # open: VIEW KEY=VALUE ...}
 * among its leading comments, e.g. {@code # open: forward tangent=x:ones} or
 * {@code # open: hvp wrt=w vector=random}. Views: {@link #VIEWS}.
 *
 * @param view the sweep or view to start on
 * @param options its settings by key
 */
public record OpenHint(String view, Map<String, String> options) {
    private static final String PREFIX = "# open:";

    /**
     * The views a hint may name: the Forward sweep (with {@code tangent=LEAF:DIRECTION}), the Backward
     * sweep, the Backward sweep with every gradient checked, and the H·v view ({@code wrt=LEAF}).
     */
    public static final java.util.List<String> VIEWS = java.util.List.of("forward", "backward", "check", "hvp");

    /** The hint in {@code source}'s leading comment lines, or null when there is none. */
    public static OpenHint of(String source) {
        for (String line : source.split("\n", -1)) {
            String s = line.strip();
            if (s.isEmpty()) {
                continue;
            }
            if (!s.startsWith("#")) {
                return null;
            }
            if (s.startsWith(PREFIX)) {
                String[] words = s.substring(PREFIX.length()).strip().split("\\s+");
                Map<String, String> opts = new LinkedHashMap<>();
                for (int i = 1; i < words.length; i++) {
                    int eq = words[i].indexOf('=');
                    if (eq > 0) {
                        opts.put(words[i].substring(0, eq), words[i].substring(eq + 1));
                    }
                }
                return words[0].isEmpty() ? null : new OpenHint(words[0], Map.copyOf(opts));
            }
        }
        return null;
    }
}
