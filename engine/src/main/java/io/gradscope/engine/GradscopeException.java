package io.gradscope.engine;

/**
 * A mistake a user can cause (a bad shape, axis, option or file). Its message says what went wrong
 * and, where known, where; the command line and the app show it as one line, never as a stack trace.
 */
public class GradscopeException extends RuntimeException {
    public GradscopeException(String message) {
        super(message);
    }

    public GradscopeException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * {@code message} as one printable line: a line break, a NUL or another control character it quotes
     * (a model's tensor name, a file's field may hold one) is written as an escape ({@code \n},
     * {@code \x00}), as the lexer writes one; a tab stays.
     */
    public static String oneLine(String message) {
        if (message == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(message.length());
        for (int i = 0; i < message.length(); i++) {
            char c = message.charAt(i);
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append(c);
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\x%02x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
