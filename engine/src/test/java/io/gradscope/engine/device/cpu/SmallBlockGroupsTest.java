package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Small CPU storages share a cleaner per group (Note [Small host blocks in groups]): the active and
 * reserved bytes still come back, at once when released and through the collector when not, and a
 * storage still reachable keeps its group's bytes counted, never fewer than its own.
 */
class SmallBlockGroupsTest {
    private static final CpuBackend CPU = CpuBackend.INSTANCE;
    private static final long BYTES = 400; // 100 floats: well under the grouped size

    @Test
    void aReleasedSmallStorageGivesItsBytesBackAtOnce() {
        long live = CPU.liveBytes();
        long reserved = CPU.reservedBytes();
        Tensor t = Tensor.zeros(DType.FLOAT32, 100);
        assertEquals(live + BYTES, CPU.liveBytes());
        assertEquals(reserved + BYTES, CPU.reservedBytes());
        t.storage().release();
        t.storage().release();
        assertEquals(live, CPU.liveBytes());
        assertEquals(reserved, CPU.reservedBytes());
    }

    @Test
    void unreleasedSmallStoragesComeBackOnceUnreachable() throws InterruptedException {
        long before = settledLiveBytes();
        long reserved = CPU.reservedBytes();
        // Ten groups' worth, never released; the thread's end drops its current group too.
        Thread t = new Thread(() -> {
            for (int i = 0; i < 10 * CpuAllocator.GROUP_MEMBERS; i++) {
                Tensor.zeros(DType.FLOAT32, 100);
            }
        });
        t.start();
        t.join();
        assertTrue(collectUntil(() -> CPU.liveBytes() <= before), "live " + CPU.liveBytes() + ", before " + before);
        assertTrue(CPU.reservedBytes() <= reserved, "reserved " + CPU.reservedBytes() + ", before " + reserved);
    }

    @Test
    void aReachableStorageKeepsItsBytesAndAtMostItsGroupsCounted() throws InterruptedException {
        long before = settledLiveBytes();
        Tensor[] kept = new Tensor[1];
        Thread t = new Thread(() -> {
            kept[0] = Tensor.zeros(DType.FLOAT32, 100); // the first of its thread's first group
            for (int i = 0; i < 10 * CpuAllocator.GROUP_MEMBERS; i++) {
                Tensor.zeros(DType.FLOAT32, 100);
            }
        });
        t.start();
        t.join();
        long groupBytes = CpuAllocator.GROUP_MEMBERS * BYTES;
        assertTrue(collectUntil(() -> CPU.liveBytes() - before <= groupBytes),
                "live " + (CPU.liveBytes() - before) + " bytes over the start; a group holds at most " + groupBytes);
        assertTrue(CPU.liveBytes() - before >= BYTES, "the kept storage is still counted: " + (CPU.liveBytes() - before));
        assertEquals(0f, kept[0].storage().floats()[99]);
        kept[0] = null;
        assertTrue(collectUntil(() -> CPU.liveBytes() <= before), "live " + CPU.liveBytes() + ", before " + before);
    }

    /** The live bytes once what earlier tests left unreachable has come back (no change over a few collections). */
    private static long settledLiveBytes() throws InterruptedException {
        long last = -1;
        for (int same = 0, i = 0; same < 3 && i < 200; i++) {
            System.gc();
            Thread.sleep(20);
            long now = CPU.liveBytes();
            same = now == last ? same + 1 : 0;
            last = now;
        }
        return last;
    }

    private static boolean collectUntil(BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
        }
        return done.getAsBoolean();
    }
}
