/**
 * Diagnosis of a run: health counts of a tensor, where a NaN or infinity was born (FiniteOrigin)
 * and what it harmed, which node's VJP is wrong (NodeCheck), and what changed between two runs
 * (RunDiff). It is at the top of the engine: it may use run, lang and everything below, not
 * jacobian or onnx beside it (EngineLayersTest).
 */
package io.gradscope.engine.diagnose;
