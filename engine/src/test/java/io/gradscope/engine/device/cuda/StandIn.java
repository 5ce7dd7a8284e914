package io.gradscope.engine.device.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gradscope.engine.tensor.Backends;

/**
 * The CPU stand-in for the CUDA driver (engine/src/test/native/cuda-standin), as tests see it: its
 * counters and controls, reached through JNI functions it exports. Usable only when the CUDA
 * backend runs on it ({@link #assumeRunning()}); on a real GPU these tests skip.
 */
final class StandIn {
    private StandIn() {
    }

    /** Skips the calling test unless the CUDA backend is up (on a GPU or on the stand-in). */
    static CudaBackend assumeCuda() {
        assumeTrue(Backends.cudaAvailable(), () -> "CUDA unavailable: " + Backends.cudaProblem());
        return (CudaBackend) Backends.cuda();
    }

    /** Whether the CUDA backend runs on the stand-in (so its natives below can be called). */
    static boolean running() {
        String path = System.getProperty(CudaDriver.DRIVER_PROPERTY, "");
        return !path.isBlank() && !path.equals("system") && Backends.cudaAvailable();
    }

    /** Skips the calling test unless the CUDA backend is up and running on the stand-in. */
    static CudaBackend assumeRunning() {
        assumeTrue(running(), () -> Backends.cudaAvailable() ? "the driver stand-in is not in use (a real GPU run)"
                : "CUDA unavailable: " + Backends.cudaProblem());
        return (CudaBackend) Backends.cuda();
    }

    /** Device memory beyond which cuMemAlloc fails with CUDA_ERROR_OUT_OF_MEMORY; 0 for none. */
    static native void setMemoryLimit(long bytes);

    /** Bytes of device memory allocated (cuMemAlloc) and not freed. */
    static native long liveBytes();

    static native long liveAllocations();

    static native long allocCalls();

    static native long freeCalls();

    /** Host-device copies so far (cuMemcpy*). */
    static native long copyCalls();

    /** The next {@code n} launches fail with CUDA_ERROR_LAUNCH_FAILED. */
    static native void failNextLaunches(int n);

    /** The launches since the last call, a line each: {@code name grid=x,y,z block=x,y,z}. */
    static native String takeLaunches();

    /** The message of the last error the stand-in returned. */
    static native String lastError();
}
