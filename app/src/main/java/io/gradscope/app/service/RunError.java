package io.gradscope.app.service;

/**
 * Why a run failed, as the app shows it: {@code message} as the command line prints it (under the
 * editor), {@code what} without the position, the 1-based {@code line} and {@code column} (0 when
 * it has none), and {@code status}, the one line for the status bar.
 */
public record RunError(String message, String what, int line, int column, String status) {
}
