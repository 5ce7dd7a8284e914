package io.gradscope.engine.tensor;

/** Reductions over axes. MAX propagates NaN, as PyTorch's amax. */
public enum ReduceKind {
    SUM, MAX
}
