/**
 * The CPU backend: the tensor.Backend kernels on Java arrays, the elementwise and reduction
 * loops, the GEMM (Vector API micro-kernels, the system BLAS when present), convolutions
 * (direct, im2col, Winograd), pooling and norms, the threads, and the kernel tuner with its
 * cache. The allocator (CpuAllocator) uses alloc's BlockCache. It may use device, alloc,
 * tensor and the engine root package (EngineLayersTest).
 */
package io.gradscope.engine.device.cpu;
