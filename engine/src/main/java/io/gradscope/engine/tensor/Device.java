package io.gradscope.engine.tensor;

/**
 * Where a tensor's storage lives. {@link #META} holds no data and computes nothing: a program run
 * there allocates, frees and recomputes exactly as on the CPU, so its trace predicts a step's
 * memory at no cost (as PyTorch's meta tensors).
 */
public enum Device {
    CPU("cpu"), CUDA("cuda"), META("meta");

    private final String label;

    Device(String label) {
        this.label = label;
    }

    @Override
    public String toString() {
        return label;
    }

    /** The devices a user can choose to compute on (not {@link #META}). */
    public static java.util.List<Device> computing() {
        return java.util.List.of(CPU, CUDA);
    }
}
