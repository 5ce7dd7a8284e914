/**
 * The CUDA backend: the tensor.Backend kernels on an NVIDIA GPU through JCuda, the kernels of
 * assets/kernels/gradscope.cu loaded from their committed PTX, host-device transfers and the
 * caching allocator (alloc's BlockCache). It may use device, alloc, tensor and the engine
 * root package (EngineLayersTest).
 */
package io.gradscope.engine.device.cuda;
