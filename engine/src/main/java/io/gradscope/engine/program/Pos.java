package io.gradscope.engine.program;

/** A 1-based line and column in a program's text. */
public record Pos(int line, int column) {
}
