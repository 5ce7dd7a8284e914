package io.gradscope.app.viewmodel;

/**
 * Where the lines of one text are in another, edited from it: a line untouched by the edits keeps its
 * place (shifted by the lines added or removed above it); a line changed or removed has none. The
 * lines before the first difference and after the last map one to one; between them, the longest
 * common subsequence of lines maps those it keeps (when that part is small enough to compare, else
 * none of it maps). A line never maps to a line that does not hold the same code: lines are compared
 * without their trailing comment and trailing spaces, so a comment added to a statement's line keeps it.
 */
public final class LineMap {
    /** The most line pairs compared between the first and the last difference (1000 lines by 1000). */
    static final long MAX_CELLS = 1_000_000;

    private final int[] map;

    private LineMap(int[] map) {
        this.map = map;
    }

    /** The map from the lines of {@code before} to those of {@code after}. */
    public static LineMap between(String before, String after) {
        String[] a = code(before.split("\n", -1));
        String[] b = code(after.split("\n", -1));
        int[] map = new int[a.length];
        java.util.Arrays.fill(map, -1);
        int prefix = 0;
        int most = Math.min(a.length, b.length);
        while (prefix < most && a[prefix].equals(b[prefix])) {
            map[prefix] = prefix;
            prefix++;
        }
        int suffix = 0;
        while (suffix < most - prefix && a[a.length - 1 - suffix].equals(b[b.length - 1 - suffix])) {
            map[a.length - 1 - suffix] = b.length - 1 - suffix;
            suffix++;
        }
        int n = a.length - prefix - suffix;
        int m = b.length - prefix - suffix;
        if (n > 0 && m > 0 && (long) n * m <= MAX_CELLS) {
            common(a, prefix, n, b, prefix, m, map);
        }
        return new LineMap(map);
    }

    /** Each line without its comment (from a {@code #} outside a string) and its trailing spaces. */
    static String[] code(String[] lines) {
        String[] out = new String[lines.length];
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            char quote = 0;
            int end = l.length();
            for (int k = 0; k < l.length(); k++) {
                char c = l.charAt(k);
                if (quote != 0) {
                    quote = c == quote ? 0 : quote;
                } else if (c == '"' || c == '\'') {
                    quote = c;
                } else if (c == '#') {
                    end = k;
                    break;
                }
            }
            out[i] = l.substring(0, end).stripTrailing();
        }
        return out;
    }

    /** Maps the longest common subsequence of a[ao, ao+n) and b[bo, bo+m) into {@code map}. */
    private static void common(String[] a, int ao, int n, String[] b, int bo, int m, int[] map) {
        // longest[i][j]: the longest common subsequence of a's lines from i and b's from j.
        int[][] longest = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                longest[i][j] = a[ao + i].equals(b[bo + j]) ? longest[i + 1][j + 1] + 1
                        : Math.max(longest[i + 1][j], longest[i][j + 1]);
            }
        }
        int i = 0;
        int j = 0;
        while (i < n && j < m) {
            if (a[ao + i].equals(b[bo + j])) {
                map[ao + i] = bo + j;
                i++;
                j++;
            } else if (longest[i + 1][j] >= longest[i][j + 1]) {
                i++;
            } else {
                j++;
            }
        }
    }

    /** The 1-based line of the edited text that line {@code line} (1-based) became; 0 when it was changed or removed, or is not a line. */
    public int map(int line) {
        return line < 1 || line > map.length || map[line - 1] < 0 ? 0 : map[line - 1] + 1;
    }
}
