package io.gradscope.engine.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.alloc.BlockCache;
import io.gradscope.engine.alloc.BlockCacheTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Note [Reserved bytes per run]: the same allocations in two runs show the same reserved bytes, whatever the run before left. */
class RunReservedTest {
    /** One "run": two cached blocks and a small uncached one, one cached block given back; returns the most reserved seen, and what it still holds. */
    private static long run(BlockCache<Integer> cache, List<Runnable> held) {
        cache.startRun();
        long most = cache.runReservedBytes();
        BlockCache.Block<Integer> a = cache.take(0, 4200, true);
        most = Math.max(most, cache.runReservedBytes());
        BlockCache.Block<Integer> b = cache.take(0, 9000, true);
        most = Math.max(most, cache.runReservedBytes());
        long run = cache.currentRun();
        cache.takeUncached(100, run);
        most = Math.max(most, cache.runReservedBytes());
        b.run();
        most = Math.max(most, cache.runReservedBytes());
        held.add(a);
        held.add(() -> cache.giveBackUncached(100, run));
        return most;
    }

    @Test
    void theRunBeforeAndItsCacheDoNotCountInTheNext() {
        BlockCacheTest.Device dev = new BlockCacheTest.Device(1 << 30);
        BlockCache<Integer> cache = new BlockCache<>("test", dev, 1024, Long.MAX_VALUE);
        List<Runnable> first = new ArrayList<>();
        long once = run(cache, first);
        assertEquals(BlockCache.sizeClass(4200) + BlockCache.sizeClass(9000) + 100, once);
        // The first run's blocks are still held (the window still shows it) while the second runs.
        List<Runnable> second = new ArrayList<>();
        long twice = run(cache, second);
        assertEquals(once, twice, "the same program, the same reserved bytes");
        assertTrue(cache.reservedBytes() > cache.runReservedBytes(), "the system still holds the first run's blocks");
        // The first run's blocks come back during a third: to the system, never counted in it.
        cache.startRun();
        long before = cache.runReservedBytes();
        assertEquals(0, before);
        first.forEach(Runnable::run);
        assertEquals(0, cache.runReservedBytes());
        BlockCache.Block<Integer> c = cache.take(0, 4200, true);
        assertFalse(c.reused(), "a block of the run before is not reused uncounted");
        assertEquals(BlockCache.sizeClass(4200), cache.runReservedBytes());
        second.forEach(Runnable::run);
        c.run();
        assertEquals(BlockCache.sizeClass(4200), cache.runReservedBytes(), "cached for the run: still reserved");
        assertEquals(BlockCache.sizeClass(4200), cache.reservedBytes(), "nothing else held");
    }
}
