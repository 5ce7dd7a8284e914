package io.gradscope.engine.lang;

/** A 1-based line and column in a program's text. */
public record Pos(int line, int column) {
}
