package io.gradscope.engine.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.device.cpu.CpuBackend;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The caching policy both allocators share, with the allocator alone: a pretend device of limited
 * memory stands for the GPU (the CUDA allocator's accounting without a GPU), and the CPU
 * allocator is checked through the backend.
 */
class BlockCacheTest {

    /** A device with {@code limit} bytes: segments are numbered; it counts what it hands out and takes back. */
    static final class Device implements BlockCache.Segments<Integer> {
        final long limit;
        long used;
        int next;
        int released;

        Device(long limit) {
            this.limit = limit;
        }

        @Override
        public Integer reserve(int pool, long size) {
            if (used + size > limit) {
                return null;
            }
            used += size;
            return next++;
        }

        @Override
        public void release(Integer segment, int pool, long size) {
            used -= size;
            released++;
        }
    }

    @Test
    void aBlockServesEveryRequestOfItsClassAndActiveIsToldFromReserved() {
        Device dev = new Device(1 << 30);
        BlockCache<Integer> cache = new BlockCache<>("test", dev, 0, Long.MAX_VALUE);
        BlockCache.Block<Integer> a = cache.take(0, 4200, true);
        assertEquals(5120, a.size());
        assertFalse(a.reused());
        assertEquals(4200, cache.activeBytes());
        assertEquals(5120, cache.reservedBytes());
        a.run();
        a.run(); // given back once only
        assertEquals(0, cache.activeBytes());
        assertEquals(5120, cache.reservedBytes(), "kept for reuse: reserved, not active");
        assertEquals(5120, cache.cachedBytes());
        BlockCache.Block<Integer> b = cache.take(0, 5000, true);
        assertSame(a.segment(), b.segment(), "the same block");
        assertTrue(b.reused());
        assertEquals(1, cache.reservations());
        BlockCache.Block<Integer> other = cache.take(1, 5000, true);
        assertEquals(2, cache.reservations(), "another pool does not share blocks");
        assertEquals(10000, cache.activeBytes());
        assertEquals(10000, cache.peakActiveBytes());
        b.run();
        other.run();
        cache.freeCached();
        assertEquals(0, cache.reservedBytes());
        assertEquals(0, dev.used);
    }

    @Test
    void smallRequestsAreNotCached() {
        Device dev = new Device(1 << 30);
        BlockCache<Integer> cache = new BlockCache<>("test", dev, 64 << 10, Long.MAX_VALUE);
        BlockCache.Block<Integer> s = cache.take(0, 1000, true);
        assertEquals(1000, s.size(), "exactly its size");
        s.run();
        assertEquals(0, cache.reservedBytes());
        assertEquals(1, dev.released);
    }

    @Test
    void whenTheDeviceIsFullTheCacheIsReleasedAndTheRequestRetried() {
        Device dev = new Device(8 << 20);
        BlockCache<Integer> cache = new BlockCache<>("test", dev, 0, Long.MAX_VALUE);
        List<BlockCache.Block<Integer>> small = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            small.add(cache.take(0, 2 << 20, true));
        }
        small.forEach(BlockCache.Block::run);
        assertEquals(8L << 20, cache.cachedBytes());
        BlockCache.Block<Integer> big = cache.take(0, 4 << 20, true);
        assertNotNull(big, "fits once the cached blocks went back");
        assertEquals(4, dev.released);
        assertEquals(4L << 20, cache.reservedBytes());
        assertNull(cache.take(0, 8 << 20, true), "does not fit at all: null, after asking the collector");
        big.run();
    }

    @Test
    void theCacheKeepsAtMostItsLimitAndSaysWhenItGivesSegmentsBack() {
        Device dev = new Device(1 << 30);
        BlockCache<Integer> cache = new BlockCache<>("test", dev, 0, 3 << 20);
        List<BlockCache.Block<Integer>> blocks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            blocks.add(cache.take(0, 1 << 20, true));
        }
        List<TraceEvent.Reserved> said;
        try (Recorder rec = Recorder.start()) {
            blocks.forEach(BlockCache.Block::run);
            said = rec.trace().of(TraceEvent.Reserved.class);
        }
        assertTrue(cache.cachedBytes() <= 3 << 20, "cached " + cache.cachedBytes());
        assertEquals(1, said.size());
        assertEquals(cache.reservedBytes(), said.get(0).reserved());
        assertEquals("test", said.get(0).device());
    }

    @Test
    void theCpuAllocatorReusesLargeArraysAndGetsUnreleasedOnesBackFromTheCollector() throws InterruptedException {
        CpuBackend cpu = CpuBackend.INSTANCE;
        Tensor a = Tensor.zeros(DType.FLOAT32, 1 << 20);
        a.backend().fill(a, 3);
        Object array = a.storage().data();
        long reservations = cpu.cache().reservations();
        a.storage().release();
        Tensor b = Tensor.zeros(DType.FLOAT32, (1 << 20) - 100);
        assertSame(array, b.storage().data(), "the same array, reused");
        assertEquals(reservations, cpu.cache().reservations());
        assertEquals(0.0, b.get(12345), "zeroed again");
        b.storage().release();
        long before = cpu.liveBytes();
        for (int i = 0; i < 20; i++) {
            Tensor.zeros(DType.FLOAT64, 1 << 17); // 1 MiB, never released: unreachable at once
        }
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (cpu.liveBytes() > before && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
        }
        assertTrue(cpu.liveBytes() <= before, "live " + cpu.liveBytes() + ", before " + before);
    }
}
