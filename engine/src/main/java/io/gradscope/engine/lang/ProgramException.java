package io.gradscope.engine.lang;

import io.gradscope.engine.GradscopeException;

/** A mistake in a program, at a line and column: {@code FILE:LINE:COL: error: WHAT}. */
public final class ProgramException extends GradscopeException {
    private final String file;
    private final int line;
    private final int column;
    private final String what;

    public ProgramException(String file, Pos pos, String what) {
        super(file + ":" + pos.line() + ":" + pos.column() + ": error: " + what);
        this.file = file;
        this.line = pos.line();
        this.column = pos.column();
        this.what = what;
    }

    public String file() {
        return file;
    }

    /** 1-based line. */
    public int line() {
        return line;
    }

    /** 1-based column. */
    public int column() {
        return column;
    }

    /** The message without the position. */
    public String what() {
        return what;
    }
}
