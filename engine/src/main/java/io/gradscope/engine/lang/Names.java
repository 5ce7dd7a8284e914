package io.gradscope.engine.lang;

import java.util.Collection;

/** "Did you mean": the closest known name within a small edit distance. */
public final class Names {
    private Names() {
    }

    /** Names longer than this get no suggestion (the distance costs the product of the lengths). */
    static final int MAX_SUGGESTED_LENGTH = 64;

    /** A suffix like " (did you mean 'relu'?)", or "". */
    public static String didYouMean(String name, Collection<String> known) {
        if (name.length() > MAX_SUGGESTED_LENGTH) {
            return "";
        }
        int limit = name.length() <= 3 ? 1 : 2;
        String best = null;
        int bestD = Integer.MAX_VALUE;
        for (String k : known) {
            if (Math.abs(k.length() - name.length()) > limit) {
                continue; // the distance is at least the difference in length
            }
            int d = distance(name.toLowerCase(java.util.Locale.ROOT), k.toLowerCase(java.util.Locale.ROOT));
            if (d < bestD || (d == bestD && best != null && k.compareTo(best) < 0)) {
                bestD = d;
                best = k;
            }
        }
        return best != null && bestD <= limit ? " (did you mean '" + best + "'?)" : "";
    }

    /** Damerau-Levenshtein distance (adjacent swaps count 1), keeping three rows. */
    static int distance(String a, String b) {
        int[] prev2 = new int[b.length() + 1];
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    cur[j] = Math.min(cur[j], prev2[j - 2] + 1);
                }
            }
            int[] t = prev2;
            prev2 = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
