/**
 * The gradient check: gradients from the backward pass against central differences in float64
 * (GradCheck). It may use autograd and the packages below it, not forward or scalar beside it
 * (EngineLayersTest).
 */
package io.gradscope.engine.check;
