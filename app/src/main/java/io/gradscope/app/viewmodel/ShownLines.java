package io.gradscope.app.viewmodel;

/**
 * The lines of the run on screen and where they are in the text now: a vertex's line as it ran, and
 * the line of the edited text that holds it ({@link LineMap}, kept for the pair of texts it was made
 * for, since the editor asks once a line while it draws).
 */
final class ShownLines {
    private LineMap lineMap;
    private String mappedRan;
    private String mappedNow;

    private String splitRan;
    private String[] ranLines;

    /** Line {@code line} (1-based) of the text that ran; null when it has no such line. Split once a text. */
    String line(String ran, int line) {
        if (line <= 0) {
            return null;
        }
        if (splitRan != ran) {
            ranLines = ran.split("\n", -1);
            splitRan = ran;
        }
        return line <= ranLines.length ? ranLines[line - 1] : null;
    }

    /**
     * The 1-based line of {@code now} that holds line {@code line} of {@code ran}: the same line while
     * the text is the one that ran, else where the edits since moved it; 0 when that line was changed
     * or removed since (or {@code line} is not one).
     */
    int textLine(String ran, String now, int line) {
        if (line < 1) {
            return 0;
        }
        if (now.equals(ran)) {
            return line;
        }
        if (lineMap == null || mappedNow != now || mappedRan != ran) {
            lineMap = LineMap.between(ran, now);
            mappedNow = now;
            mappedRan = ran;
        }
        return lineMap.map(line);
    }
}
