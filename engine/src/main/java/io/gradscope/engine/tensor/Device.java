package io.gradscope.engine.tensor;

/** Where a tensor's storage lives. */
public enum Device {
    CPU("cpu"), CUDA("cuda");

    private final String label;

    Device(String label) {
        this.label = label;
    }

    @Override
    public String toString() {
        return label;
    }
}
