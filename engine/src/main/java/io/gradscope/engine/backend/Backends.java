package io.gradscope.engine.backend;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.backend.cpu.CpuBackend;
import io.gradscope.engine.tensor.Device;

/** The backend for each device. */
public final class Backends {
    private Backends() {
    }

    private static volatile Backend cuda;
    private static volatile String cudaProblem;

    public static Backend of(Device device) {
        if (device == Device.CPU) {
            return CpuBackend.INSTANCE;
        }
        if (device == Device.META) {
            return MetaBackend.INSTANCE;
        }
        return cuda();
    }

    /**
     * The CUDA backend, started on first use. Nothing of JCuda is loaded before; without a GPU, a
     * driver or the natives this is a {@link GradscopeException} "CUDA unavailable: REASON".
     */
    public static synchronized Backend cuda() {
        if (cuda != null) {
            return cuda;
        }
        if (cudaProblem != null) {
            throw new GradscopeException("CUDA unavailable: " + cudaProblem);
        }
        try {
            Class<?> c = Class.forName("io.gradscope.engine.backend.cuda.CudaBackend");
            cuda = (Backend) c.getMethod("start").invoke(null);
            return cuda;
        } catch (java.lang.reflect.InvocationTargetException e) {
            Throwable t = e.getCause();
            String m = t.getMessage() == null ? t.toString() : t.getMessage();
            cudaProblem = m.lines().findFirst().orElse(m);
        } catch (ReflectiveOperationException | LinkageError e) {
            cudaProblem = e.toString().lines().findFirst().orElse("unknown");
        }
        throw new GradscopeException("CUDA unavailable: " + cudaProblem);
    }

    /** Whether the CUDA backend can be used here; {@link #cudaProblem()} says why not. */
    public static boolean cudaAvailable() {
        try {
            cuda();
            return true;
        } catch (GradscopeException e) {
            return false;
        }
    }

    public static String cudaProblem() {
        return cudaProblem;
    }
}
