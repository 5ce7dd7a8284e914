package io.gradscope.engine.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.TraceEvent;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Device memory comes back: from storages nobody can reach, and from the backend's own temporaries. */
class CudaLifetimesTest {

    @Test
    void unreachableStoragesGiveTheirBlocksBack() throws InterruptedException {
        CudaBackend cuda = StandIn.assumeCuda();
        long before = cuda.liveBytes();
        for (int i = 0; i < 20; i++) {
            Tensor.zeros(DType.FLOAT32, Device.CUDA, 1 << 18); // 1 MiB, dropped at once
        }
        assertTrue(cuda.liveBytes() >= before + (20L << 20));
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (cuda.liveBytes() > before && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
        }
        assertTrue(cuda.liveBytes() <= before, "live bytes " + cuda.liveBytes() + ", before " + before);
    }

    @Test
    void aFullDeviceWaitsForTheCollectorToFindUnreachableStorages() {
        StandIn.assumeRunning();
        // 400 MiB of tensors, one after another, on a device with 32 MiB to spare.
        StandIn.setMemoryLimit(StandIn.liveBytes() + (32L << 20));
        try {
            for (int i = 0; i < 100; i++) {
                Tensor t = Tensor.zeros(DType.FLOAT32, Device.CUDA, 1 << 20);
                assertEquals(4L << 20, t.storage().bytes());
            }
        } finally {
            StandIn.setMemoryLimit(0);
        }
    }

    @Test
    void theTemporaryCopiesOfReadsAndOneHotAreFreed() {
        CudaBackend cuda = StandIn.assumeCuda();
        Tensor x = Tensor.fromDoubles(DType.FLOAT32, Device.CUDA, new double[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor labels = Tensor.fromDoubles(DType.INT64, Device.CUDA, new double[] {0, 2, 1, 1, 0, 2}, 2, 3);
        Tensor out = Tensor.zeros(DType.FLOAT32, Device.CUDA, 3, 2, 3);
        long live = cuda.liveBytes();
        Map<Long, TraceEvent.Alloc> open = new HashMap<>();
        double[] read;
        try (Recorder rec = Recorder.start()) {
            read = x.viewTranspose(0, 1).toDoubleArray();
            cuda.oneHot(labels.viewTranspose(0, 1), out);
            for (TraceEvent e : rec.trace().events()) {
                if (e instanceof TraceEvent.Alloc a) {
                    open.put(a.storage(), a);
                } else if (e instanceof TraceEvent.Free f) {
                    assertEquals(open.remove(f.storage()).category(), f.category());
                }
            }
        }
        assertEquals(Map.of(), open, "allocations without a free");
        assertEquals(live, cuda.liveBytes());
        assertEquals(java.util.List.of(1.0, 4.0, 2.0, 5.0, 3.0, 6.0), java.util.Arrays.stream(read).boxed().toList());
        double[] hot = out.toDoubleArray();
        // labels transposed: [[0, 1], [2, 0], [1, 2]]
        double[] expected = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(hot));
    }
}
