package io.gradscope.engine.tensor;

import io.gradscope.engine.GradscopeException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The backend for each device. Backends register themselves as they start ({@link #register}):
 * this class names none of the implementations in code, so {@code tensor} does not depend on
 * {@code device}, {@code device.cpu} or {@code device.cuda}, which depend on it. The CPU, meta and
 * CUDA backends are loaded by name on first use; nothing of JCuda is loaded before a CUDA tensor is
 * asked for.
 */
public final class Backends {
    private Backends() {
    }

    private static final String CPU_CLASS = "io.gradscope.engine.device.cpu.CpuBackend";
    private static final String META_CLASS = "io.gradscope.engine.device.MetaBackend";
    private static final String CUDA_CLASS = "io.gradscope.engine.device.cuda.CudaBackend";
    /** By {@link Device#ordinal()}: the backends that registered. */
    private static final AtomicReferenceArray<Backend> BY_DEVICE = new AtomicReferenceArray<>(Device.values().length);
    private static volatile String cudaProblem;

    /**
     * Makes {@code backend} the one of its device, and its allocator the one the memory accounting
     * asks ({@link Allocators}). A backend calls this once, as it starts.
     */
    public static void register(Backend backend) {
        BY_DEVICE.set(backend.device().ordinal(), backend);
        Allocators.register(backend.device(), backend);
    }

    /** The backend of {@code device}, started on first use (see {@link #cuda()} for CUDA's failures). */
    public static Backend of(Device device) {
        if (device == Device.CPU) {
            return Cpu.BACKEND;
        }
        if (device == Device.META) {
            return Meta.BACKEND;
        }
        Backend b = BY_DEVICE.get(device.ordinal());
        return b != null ? b : cuda();
    }

    /**
     * The CPU backend, loaded by name as this holder starts (the first CPU tensor); it registers
     * itself as its class starts. A constant once loaded: every op asks for it.
     */
    private static final class Cpu {
        static final Backend BACKEND = load(CPU_CLASS, Device.CPU);
    }

    /** The meta backend (shapes only), loaded by name as the CPU one is. */
    private static final class Meta {
        static final Backend BACKEND = load(META_CLASS, Device.META);
    }

    /** Loads {@code className}, whose class registers the backend of {@code device} as it starts. */
    private static Backend load(String className, Device device) {
        try {
            Class.forName(className, true, Backends.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the " + device + " backend is missing: " + e.getMessage(), e);
        }
        return java.util.Objects.requireNonNull(BY_DEVICE.get(device.ordinal()), "the " + device + " backend did not register");
    }

    /**
     * The CUDA backend, started on first use. Nothing of JCuda is loaded before; without a GPU, a
     * driver or the natives this is a {@link GradscopeException} "CUDA unavailable: REASON".
     */
    public static synchronized Backend cuda() {
        Backend cuda = BY_DEVICE.get(Device.CUDA.ordinal());
        if (cuda != null) {
            return cuda;
        }
        if (cudaProblem != null) {
            throw new GradscopeException("CUDA unavailable: " + cudaProblem);
        }
        try {
            Class<?> c = Class.forName(CUDA_CLASS);
            cuda = (Backend) c.getMethod("start").invoke(null);
            register(cuda);
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
