package io.gradscope.engine.device.cuda;

import java.io.IOException;
import java.io.InputStream;

/**
 * What the CUDA backend loads before its context: the driver library (the system's, or the tests'
 * CPU stand-in named by {@link #DRIVER_PROPERTY}) and the kernels' committed PTX.
 */
final class CudaDriver {
    private CudaDriver() {
    }

    /**
     * The system property naming a driver library to load in place of the system's libcuda.so.1:
     * the tests' CPU stand-in (engine/src/test/native/cuda-standin). JCuda's native library then
     * binds to it, since a library with that soname is already loaded. Unset, blank or
     * {@code system}: the system's driver.
     */
    static final String DRIVER_PROPERTY = "gradscope.cuda.driver";

    static void loadOverride() {
        String path = System.getProperty(DRIVER_PROPERTY, "");
        if (path.isBlank() || path.equals("system")) {
            return;
        }
        java.nio.file.Path p = java.nio.file.Path.of(path).toAbsolutePath();
        if (!java.nio.file.Files.isRegularFile(p)) {
            java.nio.file.Path why = p.resolveSibling("NOT-BUILT");
            String reason = "";
            try {
                reason = java.nio.file.Files.isRegularFile(why) ? ": " + java.nio.file.Files.readString(why).strip() : "";
            } catch (IOException e) {
                // no reason then
            }
            throw new IllegalStateException("the driver stand-in " + p + " is not built" + reason);
        }
        System.load(p.toString());
    }

    /** The kernels of assets/kernels/gradscope.cu as PTX, NUL-terminated, from the class path. */
    static byte[] ptx() {
        try (InputStream in = CudaDriver.class.getResourceAsStream("/kernels/gradscope.ptx")) {
            if (in == null) {
                throw new IllegalStateException("kernels/gradscope.ptx is missing from the class path");
            }
            byte[] b = in.readAllBytes();
            byte[] z = java.util.Arrays.copyOf(b, b.length + 1);
            return z;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the kernels: " + e.getMessage());
        }
    }
}
