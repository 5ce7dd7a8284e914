/**
 * Reverse mode: the recorded graph's nodes, the backward pass (Backward) and the step-by-step
 * sweep (BackwardRun, SweepTable), gradients per node, the lifetimes and checkpoint segments of
 * a training step, and plain SGD. It may use ops, alloc, recompute, trace, tensor and the engine root
 * package (EngineLayersTest).
 */
package io.gradscope.engine.autograd;
