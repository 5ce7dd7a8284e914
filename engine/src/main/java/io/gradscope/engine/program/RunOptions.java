package io.gradscope.engine.program;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Map;

/**
 * How to run a program: the float dtype, the seed for leaves without given values, and given leaf
 * values by name (float tensors are converted to {@code dtype}; labels are int64).
 */
public record RunOptions(DType dtype, long seed, Map<String, Tensor> inputs) {
    public static RunOptions defaults() {
        return new RunOptions(DType.FLOAT32, 0, Map.of());
    }
}
