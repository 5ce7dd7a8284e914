package io.gradscope.app.viewmodel;

/**
 * Find's matches of one query on one run, best first ({@link Sweep#findAll}), and the one shown:
 * Enter steps to the next, Shift+Enter to the previous, round the end; a new query or run starts again.
 */
final class FindMatches {
    private Sweep sweep;
    private String query;
    private int[] matches = new int[0];
    private int at = -1;

    /** The match {@code step} (+1 or -1) from the one shown, for {@code query} on {@code s}; -1 when none. */
    int step(Sweep s, String query, int step) {
        String q = query.strip();
        if (s != sweep || !q.equals(this.query)) {
            sweep = s;
            this.query = q;
            matches = s.findAll(q);
            at = matches.length == 0 ? -1 : step >= 0 ? 0 : matches.length - 1;
        } else if (matches.length > 0) {
            at = Math.floorMod(at + step, matches.length);
        }
        return at < 0 ? -1 : matches[at];
    }

    /** "3 of 150" for the match shown, "no match", or "" before a query. */
    String count() {
        return query == null ? "" : matches.length == 0 ? "no match" : (at + 1) + " of " + matches.length;
    }

    void forget() {
        sweep = null;
        query = null;
        matches = new int[0];
        at = -1;
    }
}
