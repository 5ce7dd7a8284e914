package io.gradscope.engine.tensor;


/**
 * What the memory accounting needs of a device's allocator: storages, and how many bytes it holds
 * from the system. Each backend is one and registers itself ({@link Allocators#register}), so the
 * accounting reaches the allocators without knowing the backends.
 *
 * <pre>{@code
 * Storage s = Allocators.of(Device.CPU).allocate(DType.FLOAT32, 16, MemoryCategory.ACTIVATION);
 * }</pre>
 */
public interface Allocator {
    /** A zero-filled storage; the allocation is accounted and reported as a trace event. */
    Storage allocate(DType dtype, long numel, MemoryCategory category);

    /**
     * A storage whose elements are unspecified (a reused block keeps what it held): for an output
     * the kernel writes in full. Allocators that cannot tell the difference zero it anyway.
     */
    default Storage allocateUninitialized(DType dtype, long numel, MemoryCategory category) {
        return allocate(dtype, numel, category);
    }

    /**
     * Bytes the allocator holds from the system: the active bytes, and blocks cached for reuse; since
     * {@link #startRun()}, those of the run only (Note [Reserved bytes per run] in alloc.BlockCache).
     */
    long reservedBytes();

    /**
     * Starts a run whose reserved bytes are counted apart from what was held before it, so the same
     * program run twice shows the same figures. Allocators that keep no cache have nothing to do.
     */
    default void startRun() {
    }
}
