package io.gradscope.engine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import org.junit.jupiter.api.Test;

/** The caching allocator: size classes, and giving cached blocks back when the device is full. */
class CachingAllocatorTest {

    @Test
    void sizeClassesWasteAtMostAQuarter() {
        assertEquals(512, CachingAllocator.sizeClass(1));
        assertEquals(512, CachingAllocator.sizeClass(512));
        assertEquals(4096, CachingAllocator.sizeClass(4096));
        assertEquals(5120, CachingAllocator.sizeClass(4200));
        assertEquals(5120, CachingAllocator.sizeClass(5000));
        assertEquals(2L << 20, CachingAllocator.sizeClass(2L << 20));
        assertEquals(5L << 30, CachingAllocator.sizeClass((4L << 30) + 1));
        for (long b = 1; b < 1L << 40; b = b * 3 + 7) {
            long c = CachingAllocator.sizeClass(b);
            assertTrue(c >= b && c % 512 == 0 && (b <= 1024 || c <= b + b / 4 + 512), b + " -> " + c);
        }
    }

    @Test
    void aBlockServesEveryRequestOfItsClass() {
        CudaBackend cuda = StandIn.assumeCuda();
        CachingAllocator al = cuda.allocator();
        al.freeCached();
        long before = al.driverAllocations();
        Tensor a = Tensor.zeros(DType.FLOAT32, Device.CUDA, 1050); // 4200 bytes
        a.storage().release();
        Tensor b = Tensor.zeros(DType.FLOAT32, Device.CUDA, 1250); // 5000 bytes: the same block
        assertEquals(before + 1, al.driverAllocations());
        b.storage().release();
    }

    @Test
    void whenTheDeviceIsFullTheCachedBlocksAreFreedAndTheAllocationRetried() {
        CudaBackend cuda = StandIn.assumeRunning();
        CachingAllocator al = cuda.allocator();
        al.freeCached();
        StandIn.setMemoryLimit(StandIn.liveBytes() + (8L << 20));
        try {
            Tensor[] small = new Tensor[4];
            for (int i = 0; i < small.length; i++) {
                small[i] = Tensor.zeros(DType.FLOAT32, Device.CUDA, 512 * 1024); // 2 MiB each
            }
            for (Tensor t : small) {
                t.storage().release();
            }
            assertEquals(8L << 20, al.cachedBytes());
            long freesBefore = StandIn.freeCalls();
            // 4 MiB does not fit beside the 8 MiB the cache holds: the cache goes back to the driver.
            Tensor big = Tensor.zeros(DType.FLOAT32, Device.CUDA, 1 << 20);
            assertEquals(freesBefore + 4, StandIn.freeCalls());
            assertEquals(0, al.cachedBytes());
            assertEquals(0.0, big.toDoubleArray()[12345]);
            big.storage().release();
        } finally {
            StandIn.setMemoryLimit(0);
        }
    }
}
