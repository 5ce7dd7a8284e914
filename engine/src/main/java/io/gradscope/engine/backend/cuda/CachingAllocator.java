package io.gradscope.engine.backend.cuda;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.memory.Allocations;
import io.gradscope.engine.memory.MemoryCategory;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Storage;
import java.lang.ref.Cleaner;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.driver.CUdeviceptr;

/**
 * Device memory in size classes, kept for reuse when given back (cuMemAlloc is slow).
 * Allocations and releases of tensors are accounted and reported like the CPU backend's, so the
 * memory timeline shows device memory; scratch buffers (kernel metadata) are not reported.
 *
 * <p>Note [Device memory lifetimes]: a storage's block comes back to the cache when the engine
 * releases the storage ({@link Storage#release()}, with a Free event) or, failing that, when the
 * storage becomes unreachable (a {@link Cleaner}, without an event: the CPU backend leans on the
 * garbage collector the same way, but device memory does not press the collector). When
 * cuMemAlloc fails, the cached blocks are freed and the allocation retried; then the collector is
 * asked to find unreachable storages, whose blocks come back through their cleaners.
 */
final class CachingAllocator {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Map<Long, ArrayDeque<CUdeviceptr>> free = new HashMap<>();
    private final Runnable makeCurrent;
    private final AtomicLong live = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final AtomicInteger scratchInUse = new AtomicInteger();
    private final AtomicLong driverAllocations = new AtomicLong();
    private long cachedBytes;

    CachingAllocator(Runnable makeCurrent) {
        this.makeCurrent = makeCurrent;
    }

    /**
     * The block size for a request: 512 bytes at least, then four classes per power of two (2^k,
     * 1.25, 1.5 and 1.75 times 2^k), so a block serves every request of its class and wastes at
     * most a quarter of itself.
     */
    static long sizeClass(long bytes) {
        if (bytes <= 512) {
            return 512;
        }
        long step = Math.max(512, Long.highestOneBit(bytes - 1) / 4);
        return (bytes + step - 1) / step * step;
    }

    private synchronized CUdeviceptr cached(long size) {
        ArrayDeque<CUdeviceptr> q = free.get(size);
        if (q == null || q.isEmpty()) {
            return null;
        }
        cachedBytes -= size;
        return q.pop();
    }

    private synchronized void give(long size, CUdeviceptr p) {
        free.computeIfAbsent(size, k -> new ArrayDeque<>()).push(p);
        cachedBytes += size;
    }

    /** Frees every cached block (on the calling thread, with the context made current). */
    synchronized void freeCached() {
        if (cachedBytes == 0) {
            return;
        }
        makeCurrent.run();
        for (ArrayDeque<CUdeviceptr> q : free.values()) {
            while (!q.isEmpty()) {
                cuMemFree(q.pop());
            }
        }
        free.clear();
        cachedBytes = 0;
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
        driverAllocations.incrementAndGet();
        return p;
    }

    private CUdeviceptr take(long size) {
        CUdeviceptr p = cached(size);
        if (p == null) {
            p = driverAlloc(size);
        }
        if (p == null) {
            // The cache holds blocks of other sizes: give them to the driver and try again.
            freeCached();
            p = driverAlloc(size);
        }
        // Storages nobody can reach hold blocks until their cleaners run: let the collector find them.
        for (int i = 0; p == null && i < 8; i++) {
            System.gc();
            try {
                Thread.sleep(1L << i);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            p = cached(size);
            if (p == null) {
                freeCached();
                p = driverAlloc(size);
            }
        }
        if (p == null) {
            throw new GradscopeException("out of GPU memory allocating " + size + " bytes (" + live.get()
                    + " bytes of tensors live)");
        }
        return p;
    }

    /**
     * A block given back once, by whichever comes first: the engine releasing its storage, or
     * the storage's cleaner. Holds nothing that reaches the storage.
     */
    private final class Block implements Runnable {
        private final CUdeviceptr pointer;
        private final long size;
        private final long bytes;
        private final AtomicBoolean returned = new AtomicBoolean();

        Block(CUdeviceptr pointer, long size, long bytes) {
            this.pointer = pointer;
            this.size = size;
            this.bytes = bytes;
        }

        @Override
        public void run() {
            if (returned.compareAndSet(false, true)) {
                live.addAndGet(-bytes);
                give(size, pointer);
            }
        }
    }

    /** A zero-filled tensor storage, accounted and reported. */
    Storage allocate(DType dtype, long numel, MemoryCategory category) {
        long bytes = numel * dtype.bytes();
        long size = sizeClass(bytes);
        CUdeviceptr p = take(size);
        makeCurrent.run();
        cuMemsetD8(p, (byte) 0, size);
        Block block = new Block(p, size, bytes);
        Storage s = new Storage(dtype, Device.CUDA, numel, p, category, st -> {
            block.run();
            Allocations.released(st);
        });
        CLEANER.register(s, block);
        long now = live.addAndGet(bytes);
        peak.accumulateAndGet(now, Math::max);
        Allocations.allocated(s);
        return s;
    }

    /** A scratch buffer (not accounted); close it to return the block. */
    Scratch scratch(long bytes) {
        long size = sizeClass(bytes);
        CUdeviceptr p = take(size);
        scratchInUse.incrementAndGet();
        return new Scratch(p, () -> {
            scratchInUse.decrementAndGet();
            give(size, p);
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
        return live.get();
    }

    long peakBytes() {
        return peak.get();
    }

    void resetPeak() {
        peak.set(live.get());
    }

    /** Scratch buffers not yet closed (0 between launches). */
    int scratchInUse() {
        return scratchInUse.get();
    }

    /** Blocks taken from the driver so far (cuMemAlloc calls that succeeded). */
    long driverAllocations() {
        return driverAllocations.get();
    }

    synchronized long cachedBytes() {
        return cachedBytes;
    }
}
