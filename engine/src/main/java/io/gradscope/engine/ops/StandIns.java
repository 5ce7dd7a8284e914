package io.gradscope.engine.ops;

import io.gradscope.engine.alloc.Allocations;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import java.util.function.Supplier;

/**
 * One-element tensors an op runs on to learn something about itself (what its VJP reads, its value
 * and derivative at one point), off the record: nothing traced, no graph, no allocations counted.
 */
final class StandIns {
    private StandIns() {
    }

    /** A one-element float64 tensor holding {@code v}. */
    static Tensor of(double v) {
        return Tensor.full(DType.FLOAT64, Device.CPU, v, 1);
    }

    /** Runs {@code body} with the recorder paused, gradients off and its allocations unannounced. */
    static <T> T quietly(Supplier<T> body) {
        try (var paused = Recorder.pause(); var off = GradMode.disable()) {
            return Allocations.unannounced(body);
        }
    }
}
