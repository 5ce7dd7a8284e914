package io.gradscope.engine.backend;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.backend.cpu.CpuBackend;
import io.gradscope.engine.tensor.Device;

/** The backend for each device. */
public final class Backends {
    private Backends() {
    }

    public static Backend of(Device device) {
        if (device == Device.CPU) {
            return CpuBackend.INSTANCE;
        }
        throw new GradscopeException("CUDA unavailable: no CUDA backend in this build");
    }
}
