package io.gradscope.engine.lang;

/** One lexical token of a program. */
record Token(Kind kind, String text, Pos pos) {
    enum Kind { NAME, NUMBER, STRING, OP, NEWLINE, INDENT, DEDENT, EOF }

    boolean is(String op) {
        return (kind == Kind.OP || kind == Kind.NAME) && text.equals(op);
    }

    String describe() {
        return switch (kind) {
            case NEWLINE -> "the end of the line";
            case INDENT -> "an indented block";
            case DEDENT -> "the end of a block";
            case EOF -> "the end of the file";
            case STRING -> "a string";
            default -> "'" + (text.length() > 30 ? text.substring(0, 30) + "…" : text) + "'";
        };
    }
}
