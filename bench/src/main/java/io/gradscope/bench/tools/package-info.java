/**
 * The tools scripts/bench runs, each a main class: paired A/B timings in one JVM (ConvAB, StepAB,
 * GemmAB), where a model's step goes by op (StepBreakdown), and the GEMM micro-kernel against the
 * core's peak (KernelPeak). It may use the rest of the bench and the engine.
 */
package io.gradscope.bench.tools;
