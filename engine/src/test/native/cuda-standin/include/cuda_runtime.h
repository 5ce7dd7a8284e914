// CUDA's built-ins for compiling assets/kernels/gradscope.cu with a host C++ compiler, for the
// driver stand-in (standin.cpp). Every CUDA thread of a block runs as a fiber of its own on one
// host thread; __syncthreads() switches to the next fiber until all have reached the barrier.
// Kernels run one at a time (the stand-in holds one lock), so __shared__ can be a plain static:
// one copy per kernel function, shared by the block that is running.
#pragma once
#include <math.h>
#include <stdint.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

struct gs_uint3 {
    unsigned int x, y, z;
};

// The running CUDA thread's coordinates, set by the stand-in before it switches to the fiber.
struct gs_thread_coords {
    gs_uint3 threadIdx, blockIdx, blockDim, gridDim;
};
extern gs_thread_coords* gs_current;

#define threadIdx (gs_current->threadIdx)
#define blockIdx (gs_current->blockIdx)
#define blockDim (gs_current->blockDim)
#define gridDim (gs_current->gridDim)

// A barrier across the threads of the running block.
void __syncthreads();
