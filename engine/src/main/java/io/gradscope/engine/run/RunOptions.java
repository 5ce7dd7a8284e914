package io.gradscope.engine.run;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import java.util.Map;

/**
 * How to run a program: the float dtype, the seed for leaves without given values, given leaf
 * values by name (float tensors are converted to {@code dtype}; labels are int64), and the device.
 */
public record RunOptions(DType dtype, long seed, Map<String, Tensor> inputs, Device device) {
    /** On the CPU. */
    public RunOptions(DType dtype, long seed, Map<String, Tensor> inputs) {
        this(dtype, seed, inputs, Device.CPU);
    }

    public static RunOptions defaults() {
        return new RunOptions(DType.FLOAT32, 0, Map.of());
    }
}
