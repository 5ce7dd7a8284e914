package io.gradscope.app.cli;

/**
 * Long work's progress on stderr, as a command line shows it: a line such as {@code evaluating: 120
 * of 400 products} at most once a second, and only once the work has taken a second (a quick command
 * prints none). Each call first asks whether Ctrl+C was pressed ({@link Interrupt#check}).
 */
final class ProgressLine {
    private final String what;
    private final String unit;
    private final long start = System.nanoTime();
    private long last = start;

    /** {@code what} starts the line ("evaluating"), {@code unit} ends it ("products"). */
    ProgressLine(String what, String unit) {
        this.what = what;
        this.unit = unit;
    }

    /** {@code done} of {@code total}; prints when a second has passed since the last line. */
    void done(long done, long total) {
        Interrupt.check();
        long now = System.nanoTime();
        if (now - last >= 1_000_000_000L && done < total) {
            last = now;
            System.err.println(what + ": " + done + " of " + total + " " + unit);
        }
    }
}
