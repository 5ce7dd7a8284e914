/**
 * The command line (picocli): run, open, import, jvp, hvp, gradcheck, diff, jacobian, color,
 * memory, bench and bench-ui, their options and one-line usage errors, and the bench's
 * workloads. It may use launch and everything below it, and the engine (AppLayersTest).
 */
package io.gradscope.app.cli;
