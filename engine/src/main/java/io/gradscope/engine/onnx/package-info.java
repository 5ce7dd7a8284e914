/**
 * The ONNX import: a model as PyTorch exports it (opset 13-17) becomes a .grad program, one rule
 * per operator (OpRules and the *Rules classes), constant folding of shapes, masks and indices,
 * patterns PyTorch writes out (GELU, LayerNorm), and the statement's origin in the model. It is
 * at the top of the engine: it may use run, lang and everything below, not diagnose or jacobian
 * beside it (EngineLayersTest).
 */
package io.gradscope.engine.onnx;
