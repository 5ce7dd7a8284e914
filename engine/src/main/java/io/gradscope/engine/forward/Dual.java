package io.gradscope.engine.forward;

import io.gradscope.engine.tensor.Tensor;

/** A primal with its tangent: f(x) and J·v from one forward pass. */
public record Dual(Tensor primal, Tensor tangent) {
}
