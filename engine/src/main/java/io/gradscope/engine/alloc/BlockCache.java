package io.gradscope.engine.alloc;

import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The caching policy both backends' allocators share, after PyTorch's CUDA caching allocator. A
 * request is rounded up to its size class ({@link #sizeClass}); a block given back goes to the free
 * list of its class (and pool: the CPU keeps one per element type) and serves the next request of
 * that class, so a training loop that allocates the same shapes every step stops asking the system.
 * Memory comes from the system in segments (one block per segment here: no splitting) through
 * {@link Segments}; segments go back to the system when the cache holds more than its limit, and
 * when a request cannot be met: then the cached segments are released and the request retried, and
 * after that the garbage collector is asked for storages nobody can reach (their blocks come back
 * through their cleaners) and the request retried again.
 *
 * <p>Counts <em>active</em> bytes (requested by the blocks handed out and not given back) apart
 * from <em>reserved</em> bytes (segments held, cached or handed out). Requests smaller than
 * {@code smallest} are not cached: they get a segment of exactly their size, released when given
 * back (the CPU leaves small arrays to the JVM, which allocates them faster than any cache).
 *
 * <p>Note [Reserved bytes per run]: a debugger shows one run's memory, and the same program run
 * twice must show the same figures. Reserved bytes alone would not: the blocks of the run before
 * (held by whoever still shows it, or unreachable and not yet collected) and the segments it left
 * cached would count in the next one's, by however much the collector had not found yet.
 * {@link #startRun()} starts a run: the cache is emptied, and what is still held then is
 * <em>outside</em> the run; it leaves the count as it is given back (a block taken before the run
 * goes back to the system, not to the cache, so the run never reuses what it does not count).
 * {@link #runReservedBytes()} is the rest: the segments the run took, handed out or cached.
 *
 * <pre>{@code
 * BlockCache<float[]> cache = new BlockCache<>("cpu", segments, 0, Long.MAX_VALUE);
 * BlockCache.Block<float[]> b = cache.take(0, 4000, true);   // a 4096-byte class block
 * b.run();                                                   // back to the cache, once
 * }</pre>
 *
 * @param <B> a segment: a Java array, a device pointer
 */
public final class BlockCache<B> {
    /** Where segments come from and go back to. */
    public interface Segments<B> {
        /** A new segment of {@code size} bytes for {@code pool}, or null when the system is out of memory. */
        B reserve(int pool, long size);

        /** Gives a segment back to the system. */
        void release(B segment, int pool, long size);
    }

    private record Key(int pool, long size) {
    }

    private final String device;
    private final Segments<B> segments;
    private final long smallest;
    private final long cacheLimit;
    private final Map<Key, ArrayDeque<B>> free = new HashMap<>();
    private final AtomicLong active = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private long reserved;
    private long cached;
    private long reservations;
    /** The run being counted (Note [Reserved bytes per run]) and the reserved bytes held from before it. */
    private long run;
    private long outside;

    /**
     * @param device the device's name for trace events ("cpu", "cuda")
     * @param smallest requests below this many bytes are not cached
     * @param cacheLimit the most bytes the free lists may hold; beyond it, segments go back at once
     */
    public BlockCache(String device, Segments<B> segments, long smallest, long cacheLimit) {
        this.device = device;
        this.segments = segments;
        this.smallest = smallest;
        this.cacheLimit = cacheLimit;
    }

    /**
     * The block size for a request: 512 bytes at least, then four classes per power of two (2^k,
     * 1.25, 1.5 and 1.75 times 2^k), so a block serves every request of its class and wastes at
     * most a quarter of itself.
     */
    public static long sizeClass(long bytes) {
        if (bytes <= 512) {
            return 512;
        }
        long step = Math.max(512, Long.highestOneBit(bytes - 1) / 4);
        return (bytes + step - 1) / step * step;
    }

    /** The segment size a request of {@code bytes} gets: its size class, or exactly its size when small. */
    public long segmentSize(long bytes) {
        return bytes < smallest ? bytes : sizeClass(bytes);
    }

    /**
     * A block of at least {@code bytes} from {@code pool}, or null when the system has no memory
     * left even after the cache was emptied and the collector asked. {@code accounted}: whether its
     * bytes count as active (tensors do; a backend's scratch buffers do not).
     */
    public Block<B> take(int pool, long bytes, boolean accounted) {
        long size = segmentSize(bytes);
        B seg = size >= smallest ? cachedSegment(pool, size) : null;
        boolean reused = seg != null;
        if (seg == null) {
            seg = reserve(pool, size);
        }
        if (seg == null) {
            // The cache holds segments of other sizes: give them back and try again.
            freeCached();
            seg = reserve(pool, size);
        }
        // Storages nobody can reach hold blocks until their cleaners run: let the collector find them.
        for (int i = 0; seg == null && i < 8; i++) {
            System.gc();
            try {
                Thread.sleep(1L << i);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            seg = size >= smallest ? cachedSegment(pool, size) : null;
            reused = seg != null;
            if (seg == null) {
                freeCached();
                seg = reserve(pool, size);
            }
        }
        if (seg == null) {
            return null;
        }
        if (accounted) {
            countActive(bytes);
        }
        return new Block<>(this, seg, pool, size, accounted ? bytes : 0, reused, currentRun());
    }

    /**
     * Accounts for a block of {@code bytes} below {@code smallest} that the caller got from the
     * system itself (never cached: its segment is exactly its size), as {@link #take} would: active
     * and reserved. {@link #giveBackUncached} undoes it.
     */
    public void takeUncached(long bytes, long run) {
        if (bytes >= smallest) {
            throw new IllegalArgumentException(bytes + " bytes are cached in this pool's size classes");
        }
        synchronized (this) {
            countReserved(bytes);
            if (run != this.run) {
                outside += bytes; // a group started before the run: given back as outside
            }
        }
        countActive(bytes);
    }

    /**
     * Starts counting a new run's reserved bytes (Note [Reserved bytes per run]): the cached segments
     * go back to the system, and the bytes still held are the run's outside.
     */
    public synchronized void startRun() {
        freeCached();
        run++;
        outside = reserved;
    }

    /** The run being counted, for a block or group of uncached blocks to say which run took it. */
    public synchronized long currentRun() {
        return run;
    }

    /** Reserved bytes of the run being counted: its segments, handed out or cached (Note [Reserved bytes per run]). */
    public synchronized long runReservedBytes() {
        return reserved - outside;
    }

    private void countActive(long bytes) {
        long now = active.addAndGet(bytes);
        // Below the peak (most calls) nothing to write: the read costs less than the compare-and-set.
        if (now > peak.get()) {
            peak.accumulateAndGet(now, Math::max);
        }
    }

    private synchronized void countReserved(long size) {
        reserved += size;
        reservations++;
    }

    /** Gives back the accounting of {@code bytes} taken by {@link #takeUncached} in {@code run} (one or several blocks). */
    public void giveBackUncached(long bytes, long run) {
        active.addAndGet(-bytes);
        synchronized (this) {
            reserved -= bytes;
            if (run != this.run) {
                outside -= bytes;
            }
        }
    }

    private synchronized B cachedSegment(int pool, long size) {
        ArrayDeque<B> q = free.get(new Key(pool, size));
        if (q == null || q.isEmpty()) {
            return null;
        }
        cached -= size;
        return q.pop();
    }

    private B reserve(int pool, long size) {
        B seg = segments.reserve(pool, size);
        if (seg != null) {
            countReserved(size);
        }
        return seg;
    }

    private void giveBack(Block<B> b) {
        active.addAndGet(-b.bytes);
        if (b.size < smallest) {
            releaseSegment(b.segment, b.pool, b.size, b.run);
            return;
        }
        boolean over;
        synchronized (this) {
            if (b.run != run) {
                // Taken before the run: back to the system, so the run reuses only what it counts.
                segments.release(b.segment, b.pool, b.size);
                reserved -= b.size;
                outside -= b.size;
                return;
            }
            free.computeIfAbsent(new Key(b.pool, b.size), k -> new ArrayDeque<>()).push(b.segment);
            cached += b.size;
            over = cached > cacheLimit;
        }
        if (over) {
            trim(cacheLimit / 2);
        }
    }

    private void releaseSegment(B seg, int pool, long size, long takenIn) {
        segments.release(seg, pool, size);
        synchronized (this) {
            reserved -= size;
            if (takenIn != run) {
                outside -= size;
            }
        }
    }

    /** Gives every cached segment back to the system (as {@code torch.cuda.empty_cache()}). */
    public void freeCached() {
        trim(0);
    }

    /** Gives cached segments back, largest first, until the cache holds at most {@code keep} bytes. */
    private void trim(long keep) {
        boolean changed = false;
        synchronized (this) {
            while (cached > keep) {
                Key largest = null;
                for (Map.Entry<Key, ArrayDeque<B>> e : free.entrySet()) {
                    if (!e.getValue().isEmpty() && (largest == null || e.getKey().size > largest.size)) {
                        largest = e.getKey();
                    }
                }
                if (largest == null) {
                    break;
                }
                B seg = free.get(largest).pop();
                cached -= largest.size;
                reserved -= largest.size;
                segments.release(seg, largest.pool, largest.size);
                changed = true;
            }
            free.values().removeIf(ArrayDeque::isEmpty);
        }
        if (changed && Recorder.active()) {
            Recorder.emit(new TraceEvent.Reserved(runReservedBytes(), device));
        }
    }

    /** Bytes of the blocks handed out and not given back (as requested, not rounded). */
    public long activeBytes() {
        return active.get();
    }

    /** The most active bytes at once since the start or {@link #resetPeak()}. */
    public long peakActiveBytes() {
        return peak.get();
    }

    public void resetPeak() {
        peak.set(active.get());
    }

    /** Bytes of the segments held, cached or handed out. */
    public synchronized long reservedBytes() {
        return reserved;
    }

    /** Bytes of the segments waiting in the free lists. */
    public synchronized long cachedBytes() {
        return cached;
    }

    /** Segments taken from the system so far. */
    public synchronized long reservations() {
        return reservations;
    }

    /**
     * A block handed out: given back once, by whichever comes first, an explicit {@link #run()} (the
     * engine released its storage) or a {@link java.lang.ref.Cleaner} (the storage became
     * unreachable). Holds nothing that reaches the storage.
     */
    public static final class Block<B> implements Runnable {
        private final BlockCache<B> cache;
        private final B segment;
        private final int pool;
        private final long size;
        private final long bytes;
        private final boolean reused;
        private final long run;
        private final AtomicBoolean returned = new AtomicBoolean();

        private Block(BlockCache<B> cache, B segment, int pool, long size, long bytes, boolean reused, long run) {
            this.cache = cache;
            this.segment = segment;
            this.pool = pool;
            this.size = size;
            this.bytes = bytes;
            this.reused = reused;
            this.run = run;
        }

        /** Whether the block comes from the cache (it holds what its last storage left), not fresh from the system. */
        public boolean reused() {
            return reused;
        }

        /** The segment: an array, a device pointer. */
        public B segment() {
            return segment;
        }

        /** The block's size in bytes (its size class, or the request when small). */
        public long size() {
            return size;
        }

        /** Gives the block back to the cache (the first call only). */
        @Override
        public void run() {
            if (returned.compareAndSet(false, true)) {
                cache.giveBack(this);
            }
        }
    }
}
