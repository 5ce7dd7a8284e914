/**
 * The devices' backends (implementations of tensor.Backend): the meta backend here (storages
 * without data, kernels that do nothing, so a run predicts its memory), what the CPU and CUDA
 * backends share (BatchOffsets), and the cpu and cuda packages. One layer above alloc, beside ops:
 * it may use alloc, tensor and the engine root package, and no engine package uses it, because
 * tensor.Backends loads each backend by name (EngineLayersTest).
 */
package io.gradscope.engine.device;
