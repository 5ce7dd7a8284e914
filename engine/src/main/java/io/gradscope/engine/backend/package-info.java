/**
 * Backends: the meta backend (storages without data, kernels that do nothing, so a run predicts
 * its memory), and what the CPU and CUDA backends share (BatchOffsets). With cpu and cuda it is
 * one layer above memory, beside ops: it may use memory, tensor and the engine root package, and
 * no engine package uses it, because tensor.Backends loads each backend by name
 * (EngineLayersTest).
 */
package io.gradscope.engine.backend;
