package io.gradscope.engine.device.cuda;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.alloc.BlockCache;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Storage;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicInteger;
import jcuda.driver.CUdeviceptr;

/**
 * Device memory for tensors and launches, through the caching policy the CPU backend shares
 * ({@link BlockCache}: size classes, blocks reused, segments released and the request retried when
 * the device is full; cuMemAlloc is slow). Allocations and releases of tensors are accounted and
 * reported like the CPU backend's, so the memory timeline shows device memory; scratch buffers
 * (kernel metadata) are not reported.
 *
 * <p>Note [Device memory lifetimes]: a storage's block comes back to the cache when the engine
 * releases the storage ({@link Storage#release()}, with a Free event) or, failing that, when the
 * storage becomes unreachable (a {@link Cleaner}, without an event: device memory does not press the
 * collector, so the cache asks it when cuMemAlloc fails). When cuMemAlloc fails, the cached blocks
 * are freed and the allocation retried; then the collector is asked to find unreachable storages,
 * whose blocks come back through their cleaners.
 */
final class CachingAllocator {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Runnable makeCurrent;
    private final AtomicInteger scratchInUse = new AtomicInteger();
    private final BlockCache<CUdeviceptr> cache;

    CachingAllocator(Runnable makeCurrent) {
        this.makeCurrent = makeCurrent;
        this.cache = new BlockCache<>("cuda", new BlockCache.Segments<>() {
            @Override
            public CUdeviceptr reserve(int pool, long size) {
                return driverAlloc(size);
            }

            @Override
            public void release(CUdeviceptr segment, int pool, long size) {
                makeCurrent.run();
                cuMemFree(segment);
            }
        }, 0, Long.MAX_VALUE);
    }

    /** The block size for a request: see {@link BlockCache#sizeClass(long)}. */
    static long sizeClass(long bytes) {
        return BlockCache.sizeClass(bytes);
    }

    /** Frees every cached block (on the calling thread, with the context made current). */
    void freeCached() {
        cache.freeCached();
    }

    /** A new block from the driver, or null when the device is out of memory. */
    private CUdeviceptr driverAlloc(long size) {
        makeCurrent.run();
        CUdeviceptr p = new CUdeviceptr();
        try {
            cuMemAlloc(p, size);
        } catch (jcuda.CudaException e) {
            if (String.valueOf(e.getMessage()).startsWith("CUDA_ERROR_OUT_OF_MEMORY")) {
                return null;
            }
            throw e;
        }
        return p;
    }

    private BlockCache.Block<CUdeviceptr> take(long bytes, boolean accounted) {
        BlockCache.Block<CUdeviceptr> b = cache.take(0, bytes, accounted);
        if (b == null) {
            throw new GradscopeException("out of GPU memory allocating " + sizeClass(bytes) + " bytes (" + cache.activeBytes()
                    + " bytes of tensors live)");
        }
        return b;
    }

    /** A zero-filled tensor storage, accounted and reported. */
    Storage allocate(DType dtype, long numel, MemoryCategory category) {
        long bytes = numel * dtype.bytes();
        BlockCache.Block<CUdeviceptr> block = take(bytes, true);
        CUdeviceptr p = block.segment();
        makeCurrent.run();
        cuMemsetD8(p, (byte) 0, block.size());
        Storage s = new Storage(dtype, Device.CUDA, numel, p, category, st -> {
            block.run();
            Allocations.released(st);
        });
        CLEANER.register(s, block);
        Allocations.allocated(s);
        return s;
    }

    /** A scratch buffer (not accounted); close it to return the block. */
    Scratch scratch(long bytes) {
        BlockCache.Block<CUdeviceptr> block = take(bytes, false);
        scratchInUse.incrementAndGet();
        return new Scratch(block.segment(), () -> {
            scratchInUse.decrementAndGet();
            block.run();
        });
    }

    /** Device memory for the duration of a launch; {@link #close()} gives it back (once). */
    static final class Scratch implements AutoCloseable {
        private final CUdeviceptr pointer;
        private Runnable onClose;

        private Scratch(CUdeviceptr pointer, Runnable onClose) {
            this.pointer = pointer;
            this.onClose = onClose;
        }

        CUdeviceptr pointer() {
            return pointer;
        }

        @Override
        public synchronized void close() {
            if (onClose != null) {
                onClose.run();
                onClose = null;
            }
        }
    }

    long liveBytes() {
        return cache.activeBytes();
    }

    long peakBytes() {
        return cache.peakActiveBytes();
    }

    void resetPeak() {
        cache.resetPeak();
    }

    long reservedBytes() {
        return cache.reservedBytes();
    }

    /** Scratch buffers not yet closed (0 between launches). */
    int scratchInUse() {
        return scratchInUse.get();
    }

    /** Blocks taken from the driver so far (cuMemAlloc calls that succeeded). */
    long driverAllocations() {
        return cache.reservations();
    }

    long cachedBytes() {
        return cache.cachedBytes();
    }
}
