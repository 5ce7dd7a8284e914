package io.gradscope.engine.tensor;

/** Where a tensor's storage lives. */
public enum Device {
    CPU, CUDA;

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
