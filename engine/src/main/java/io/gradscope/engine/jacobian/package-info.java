/**
 * Jacobians and Hessians over the recorded graph: sparsity detection without evaluating,
 * colorings of a pattern (greedy orders, tabu search), dense and compressed evaluation from VJPs
 * and JVPs, estimates of the cost before building, and Jacobians between a program's named
 * values. It is at the top of the engine: it may use run, lang and everything below, not diagnose
 * or onnx beside it (EngineLayersTest).
 */
package io.gradscope.engine.jacobian;
