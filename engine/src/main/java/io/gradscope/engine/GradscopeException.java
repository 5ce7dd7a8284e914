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
}
