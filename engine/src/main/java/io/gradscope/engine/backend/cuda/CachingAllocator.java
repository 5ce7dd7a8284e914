package io.gradscope.engine.backend.cuda;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.memory.Allocations;
import io.gradscope.engine.memory.MemoryCategory;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Storage;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.driver.CUdeviceptr;

/**
 * Device memory in blocks rounded to 512 bytes, kept for reuse when released (cudaMalloc is slow).
 * Allocations and releases of tensors are accounted and reported like the CPU backend's, so the
 * memory timeline shows device memory; scratch buffers (kernel metadata) are not reported.
 */
final class CachingAllocator {
    private final Map<Long, ArrayDeque<CUdeviceptr>> free = new HashMap<>();
    private final Runnable makeCurrent;
    private final AtomicLong live = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();

    CachingAllocator(Runnable makeCurrent) {
        this.makeCurrent = makeCurrent;
    }

    private static long rounded(long bytes) {
        return Math.max(512, (bytes + 511) / 512 * 512);
    }

    private synchronized CUdeviceptr take(long size) {
        ArrayDeque<CUdeviceptr> q = free.get(size);
        if (q != null && !q.isEmpty()) {
            return q.pop();
        }
        makeCurrent.run();
        CUdeviceptr p = new CUdeviceptr();
        try {
            cuMemAlloc(p, size);
        } catch (jcuda.CudaException e) {
            // Give the cached blocks back and try once more before failing.
            free.clear();
            try {
                cuMemAlloc(p, size);
            } catch (jcuda.CudaException again) {
                throw new GradscopeException("out of GPU memory allocating " + size + " bytes");
            }
        }
        return p;
    }

    private synchronized void give(long size, CUdeviceptr p) {
        free.computeIfAbsent(size, k -> new ArrayDeque<>()).push(p);
    }

    /** A zero-filled tensor storage, accounted and reported. */
    Storage allocate(DType dtype, long numel, MemoryCategory category) {
        long bytes = numel * dtype.bytes();
        long size = rounded(bytes);
        CUdeviceptr p = take(size);
        makeCurrent.run();
        cuMemsetD8(p, (byte) 0, size);
        Storage s = new Storage(dtype, Device.CUDA, numel, p, category, st -> {
            live.addAndGet(-st.bytes());
            give(size, p);
            Allocations.released(st);
        });
        long now = live.addAndGet(s.bytes());
        peak.accumulateAndGet(now, Math::max);
        Allocations.allocated(s);
        return s;
    }

    /** A scratch buffer (not accounted); release it to return the block. */
    Storage raw(long bytes) {
        long size = rounded(bytes);
        CUdeviceptr p = take(size);
        return new Storage(DType.INT64, Device.CUDA, size / 8, p, MemoryCategory.TEMPORARY, st -> give(size, p));
    }

    long liveBytes() {
        return live.get();
    }

    long peakBytes() {
        return peak.get();
    }

    void resetPeak() {
        peak.set(live.get());
    }
}
