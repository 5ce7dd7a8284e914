package io.gradscope.engine.device.cpu;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.alloc.BlockCache;
import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Storage;
import java.lang.ref.Cleaner;
import java.util.Arrays;

/**
 * Host memory for tensors: Java arrays from a {@link BlockCache}, the policy the CUDA backend's
 * allocator uses too. Arrays of 64 KiB and more come in size classes, one pool per element type,
 * and are reused when their storage is released: a training step that allocates the same shapes
 * every time stops making the garbage collector clear and zero 16 MiB arrays. Smaller arrays are
 * left to the JVM (exactly their size; its thread-local allocation is faster than any cache).
 *
 * <p>Note [Host memory lifetimes]: as on the device (Note [Device memory lifetimes]), a block comes
 * back when the engine releases its storage ({@link Storage#release()}, with a Free event) or, failing
 * that, when the storage becomes unreachable (a {@link Cleaner}, without an event), so the active
 * bytes stay exact whether or not a caller releases what it made. The cache holds at most a quarter
 * of the heap's limit; when an array cannot be had, the cache is emptied and the collector asked
 * before the allocation fails with the heap's limit in the message.
 *
 * <p>Note [Small host blocks in groups]: a cleaner per storage is a phantom reference the collector
 * must find, keep and hand to the cleaner's thread. A chain of a thousand small ops made two
 * thousand of them per pass, and each young collection took 100-150 ms copying them (1-2 ms
 * without). So storages under {@link #GROUPED_BELOW} bytes (never cached) share a cleaner: those
 * made one after another on a thread form a group of at most {@link #GROUP_MEMBERS} storages and
 * about {@link #GROUPED_BELOW} bytes, each storage refers to its group, and the group's one cleaner
 * gives back the bytes of its members nobody released once all of them are unreachable. A released
 * storage gives its bytes back at once, as before. An unreleased small one stays counted while any
 * member of its group can be reached, its thread's current group included (until the thread makes
 * {@link #GROUP_MEMBERS} more or ends): each group so kept counts at most about
 * 2 × {@link #GROUPED_BELOW} bytes that are already gone. The engine releases what it makes in a
 * step; this lag is for storages nobody releases.
 */
final class CpuAllocator {
    /**
     * Below this many bytes, arrays are not cached. {@code -Dgradscope.allocator.reuse=false} caches
     * none (every array fresh, as before the cache): to measure what reuse gives, the same build.
     */
    static final long SMALLEST_CACHED = Boolean.parseBoolean(System.getProperty("gradscope.allocator.reuse", "true"))
            ? 64 << 10 : Long.MAX_VALUE;

    private static final Cleaner CLEANER = Cleaner.create();

    /** Storages below this many bytes share a cleaner (Note [Small host blocks in groups]). */
    static final long GROUPED_BELOW = Math.min(SMALLEST_CACHED, 64 << 10);
    static final int GROUP_MEMBERS = 64;

    private final ThreadLocal<Group> group = new ThreadLocal<>();

    private final BlockCache<Object> cache = new BlockCache<>("cpu", new BlockCache.Segments<>() {
        @Override
        public Object reserve(int pool, long size) {
            DType dt = DType.values()[pool];
            // A size class past the largest array (8 GiB of floats) holds MAX_NUMEL: no tensor has more.
            int n = (int) Math.min(size / dt.bytes(), Shapes.MAX_NUMEL);
            try {
                return switch (dt) {
                    case FLOAT32 -> new float[n];
                    case FLOAT64 -> new double[n];
                    case INT64 -> new long[n];
                };
            } catch (OutOfMemoryError e) {
                return null;
            }
        }

        @Override
        public void release(Object segment, int pool, long size) {
            // The collector takes the array once nothing refers to it.
        }
    }, SMALLEST_CACHED, Math.max(HeapLimit.bytes() / 4, 64L << 20));

    /** A storage of {@code numel} elements, zero-filled when {@code zeroed}, accounted and announced. */
    Storage allocate(DType dtype, long numel, MemoryCategory category, boolean zeroed) {
        if (numel > Shapes.MAX_NUMEL) {
            throw new GradscopeException("cannot allocate " + numel + " elements: more than a tensor can hold");
        }
        long bytes = numel * dtype.bytes();
        if (bytes < GROUPED_BELOW) {
            Storage s = grouped(dtype, (int) numel, bytes, category);
            if (s != null) {
                return s;
            }
        }
        BlockCache.Block<Object> block = cache.take(dtype.ordinal(), bytes, true);
        if (block == null) {
            throw HeapLimit.outOfMemory("allocating " + HeapLimit.human(bytes) + " for a " + dtype + " tensor of " + numel
                    + " elements");
        }
        Object data = block.segment();
        if (zeroed && block.reused()) {
            switch (dtype) {
                case FLOAT32 -> Arrays.fill((float[]) data, 0, (int) numel, 0f);
                case FLOAT64 -> Arrays.fill((double[]) data, 0, (int) numel, 0.0);
                case INT64 -> Arrays.fill((long[]) data, 0, (int) numel, 0L);
            }
        }
        // Released, the block goes back at once and its cleaner is dropped: the collector then has
        // no phantom reference to process for it (Note [Host memory lifetimes]).
        Cleaner.Cleanable[] cleanable = new Cleaner.Cleanable[1];
        Storage s = new Storage(dtype, Device.CPU, numel, data, category, st -> {
            cleanable[0].clean();
            Allocations.released(st);
        });
        cleanable[0] = CLEANER.register(s, block);
        Allocations.allocated(s);
        return s;
    }

    BlockCache<Object> cache() {
        return cache;
    }

    /** A small storage in this thread's current group, or null when the heap has no room for its array. */
    private Storage grouped(DType dtype, int numel, long bytes, MemoryCategory category) {
        Object data;
        try {
            data = switch (dtype) {
                case FLOAT32 -> new float[numel];
                case FLOAT64 -> new double[numel];
                case INT64 -> new long[numel];
            };
        } catch (OutOfMemoryError e) {
            return null; // the cached path empties the cache and asks the collector
        }
        Group g = group.get();
        // A group is one run's (Note [Reserved bytes per run]).
        if (g == null || g.members >= GROUP_MEMBERS || g.bytes >= GROUPED_BELOW || g.tally.run != cache.currentRun()) {
            g = new Group(cache);
            group.set(g);
        }
        g.members++;
        g.bytes += bytes;
        g.tally.outstanding.addAndGet(bytes);
        cache.takeUncached(bytes, g.tally.run);
        Storage s = new Storage(dtype, Device.CPU, numel, data, category, g);
        Allocations.allocated(s);
        return s;
    }

    /** Storages made one after another on a thread that share a cleaner; each refers to it as its releaser. */
    private static final class Group implements Storage.Releaser {
        final Tally tally;
        int members;
        long bytes;

        Group(BlockCache<Object> cache) {
            tally = new Tally(cache);
            CLEANER.register(this, tally);
        }

        @Override
        public void released(Storage st) {
            tally.released(st.bytes());
            Allocations.released(st);
        }
    }

    /** A group's bytes not yet given back; what its cleaner runs (it holds nothing that reaches the group). */
    private static final class Tally implements Runnable {
        final BlockCache<Object> cache;
        final java.util.concurrent.atomic.AtomicLong outstanding = new java.util.concurrent.atomic.AtomicLong();

        /** The run the group's blocks were taken in. */
        final long run;

        Tally(BlockCache<Object> cache) {
            this.cache = cache;
            this.run = cache.currentRun();
        }

        void released(long bytes) {
            outstanding.addAndGet(-bytes);
            cache.giveBackUncached(bytes, run);
        }

        @Override
        public void run() {
            long left = outstanding.getAndSet(0);
            if (left > 0) {
                cache.giveBackUncached(left, run);
            }
        }
    }
}
