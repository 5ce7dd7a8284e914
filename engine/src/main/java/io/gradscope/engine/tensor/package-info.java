/**
 * Tensors and what they stand on: Tensor (a storage seen through a shape, strides and an
 * offset), dtypes, devices, shape arithmetic, the elementwise and reduction kinds, and the
 * Backend interface with its registry (Backends, Allocators). Backends register themselves and
 * are loaded by name, so this package names no backend in code. It may use only the engine root
 * package (EngineLayersTest).
 */
package io.gradscope.engine.tensor;
