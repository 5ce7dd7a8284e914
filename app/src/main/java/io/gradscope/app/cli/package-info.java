/**
 * The command line (picocli): run, open, import, jvp, hvp, gradcheck, diff, jacobian, color and
 * memory, their options and one-line usage errors, and {@link io.gradscope.app.cli.MoreCommands},
 * through which the bench module adds bench and bench-ui. It may use launch and everything below
 * it, and the engine (AppLayersTest).
 */
package io.gradscope.app.cli;
