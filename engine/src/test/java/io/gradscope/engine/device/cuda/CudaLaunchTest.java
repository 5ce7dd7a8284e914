package io.gradscope.engine.device.cuda;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** How the backend launches its kernels: grid limits, reductions in blocks, launches that fail. */
class CudaLaunchTest {

    private static Tensor random(DType dt, Device device, long seed, int... shape) {
        Random rnd = new Random(seed);
        long n = 1;
        for (int s : shape) {
            n *= s;
        }
        double[] v = new double[(int) n];
        for (int i = 0; i < v.length; i++) {
            v[i] = rnd.nextGaussian();
        }
        return Tensor.fromDoubles(dt, device, v, shape);
    }

    @Test
    void aBatchOfMoreThan65535MatricesMultiplies() {
        StandIn.assumeCuda();
        // The batch count once went to grid z, which stops at 65,535.
        Tensor a = random(DType.FLOAT32, Device.CPU, 1, 100000, 1, 4);
        Tensor b = random(DType.FLOAT32, Device.CPU, 2, 100000, 4, 1);
        Tensor cpu = Ops.matmul(a, b);
        Tensor gpu = Ops.matmul(a.toDevice(Device.CUDA), b.toDevice(Device.CUDA));
        assertClose(cpu.toDoubleArray(), gpu.toDoubleArray(), 1e-5, 1e-6, "[100000,1,4] @ [100000,4,1]");
        if (StandIn.running()) {
            String launches = StandIn.takeLaunches();
            assertTrue(launches.contains("matmul_f32 grid=100000,1,1 block=16,16,1"), launches);
        }
    }

    @Test
    void aFullSumRunsInBlocksAndASecondPass() {
        StandIn.assumeCuda();
        Tensor x = random(DType.FLOAT64, Device.CPU, 3, 1 << 20);
        Tensor gx = x.toDevice(Device.CUDA);
        boolean standIn = StandIn.running();
        if (standIn) {
            StandIn.takeLaunches();
        }
        double s = Ops.sum(gx).item();
        assertEquals(Ops.sum(x).item(), s, 1e-9);
        if (standIn) {
            String launches = StandIn.takeLaunches();
            // 2^20 elements: 256 blocks of 4096, whose partial sums a second pass adds.
            assertTrue(launches.contains("reduce_blocks_f64 grid=256,1,1 block=256,1,1"), launches);
            assertTrue(launches.contains("reduce_finish_f64 grid=1,1,1"), launches);
        }
    }

    @Test
    void aThreadThatNeverUsedTheDeviceCanRunEachKind() throws Exception {
        // The driver wants the context current on the calling thread (the stand-in checks it):
        // each path must make it current before its first driver call, whatever that call is.
        StandIn.assumeCuda();
        Tensor a = random(DType.FLOAT64, Device.CUDA, 9, 5, 7);
        Tensor b = random(DType.FLOAT64, Device.CUDA, 10, 7, 3);
        java.util.List<java.util.function.Supplier<Object>> jobs = java.util.List.of(
                () -> Ops.matmul(a, b).toDoubleArray(),
                () -> Ops.sum(a).item(),
                () -> Ops.exp(a).viewTranspose(0, 1).toDoubleArray(),
                () -> Tensor.zeros(DType.FLOAT32, Device.CUDA, 300),
                () -> random(DType.FLOAT32, Device.CPU, 11, 4).toDevice(Device.CUDA).toDoubleArray());
        for (java.util.function.Supplier<Object> job : jobs) {
            java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    job.get();
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            t.start();
            t.join();
            if (failure.get() != null) {
                throw new AssertionError("on a fresh thread", failure.get());
            }
        }
    }

    @Test
    void matmulRefusesAnOutputThatIsNotFreshAndContiguous() {
        CudaBackend cuda = StandIn.assumeCuda();
        Tensor a = random(DType.FLOAT64, Device.CUDA, 4, 3, 3);
        Tensor b = random(DType.FLOAT64, Device.CUDA, 5, 3, 3);
        Tensor out = Tensor.zeros(DType.FLOAT64, Device.CUDA, 3, 3).viewTranspose(0, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cuda.matmul(a, b, out));
        assertEquals("matmul output must be a fresh contiguous tensor", e.getMessage());
    }

    @Test
    void aLaunchThatFailsGivesItsScratchBuffersBack() {
        CudaBackend cuda = StandIn.assumeRunning();
        CachingAllocator al = cuda.allocator();
        Tensor a = random(DType.FLOAT32, Device.CUDA, 6, 2, 8, 8);
        Tensor b = random(DType.FLOAT32, Device.CUDA, 7, 2, 8, 8);
        Tensor out = Tensor.zeros(DType.FLOAT32, Device.CUDA, 2, 8, 8);
        Tensor big = random(DType.FLOAT32, Device.CUDA, 8, 1 << 16);
        Tensor one = Tensor.zeros(DType.FLOAT32, Device.CUDA, 1);
        Runnable[] launches = {
            () -> cuda.binary(BinaryKind.ADD, a, b, out),
            () -> cuda.matmul(a, b, out),
            () -> cuda.reduce(ReduceKind.SUM, big, one),
            () -> cuda.reduce(ReduceKind.MAX, a, Tensor.zeros(DType.FLOAT32, Device.CUDA, 2, 1, 8)),
        };
        for (Runnable r : launches) {
            assertEquals(0, al.scratchInUse());
            StandIn.failNextLaunches(1);
            assertThrows(jcuda.CudaException.class, r::run);
            assertEquals(0, al.scratchInUse(), "scratch left after a failed launch");
            r.run();
            assertEquals(0, al.scratchInUse());
        }
    }
}
