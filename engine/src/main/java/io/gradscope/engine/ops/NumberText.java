package io.gradscope.engine.ops;

/** Numbers as a reader writes them: 2 rather than 2.0. */
final class NumberText {
    private NumberText() {
    }

    static String text(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }
}
