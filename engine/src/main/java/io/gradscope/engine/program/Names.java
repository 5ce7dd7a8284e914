package io.gradscope.engine.program;

import java.util.Collection;

/** "Did you mean": the closest known name within a small edit distance. */
public final class Names {
    private Names() {
    }

    /** A suffix like " (did you mean 'relu'?)", or "". */
    public static String didYouMean(String name, Collection<String> known) {
        String best = null;
        int bestD = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance(name.toLowerCase(java.util.Locale.ROOT), k.toLowerCase(java.util.Locale.ROOT));
            if (d < bestD || (d == bestD && best != null && k.compareTo(best) < 0)) {
                bestD = d;
                best = k;
            }
        }
        int limit = name.length() <= 3 ? 1 : 2;
        return best != null && bestD <= limit ? " (did you mean '" + best + "'?)" : "";
    }

    /** Damerau-Levenshtein distance (adjacent swaps count 1). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
