package io.gradscope.bench;

import io.gradscope.engine.jacobian.GraphJacobian;
import io.gradscope.engine.jacobian.ProgramJacobians;
import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.ops.OpRegistry;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * The bench's sparsity patterns (issue 45's targets): resnet18 at 224x224, {@code fc} by the first
 * convolution's weight (1000 x 9408, every entry) and the max pool's output by its input (200,704 x
 * 802,816); a small convnet's relu by its input (x [1, 16, 32, 32], a 3x3 convolution, 16,384 x
 * 16,384, 2.26 M nonzeros). Each in milliseconds and in megabytes allocated while it is built (the
 * most it can hold; the JVM's heap use at the peak is at most this).
 */
final class PatternWorkloads {
    private PatternWorkloads() {
    }

    static List<Workloads.Workload> all() {
        Supplier<GraphJacobian> fc = () -> resnet18("fc", "conv1_weight");
        Supplier<GraphJacobian> pool = () -> resnet18("maxpool", "relu_0");
        Supplier<GraphJacobian> convnet = PatternWorkloads::convnet;
        return List.of(
                new Workloads.Workload("pattern_resnet18_fc_by_conv1_weight_ms", "ms", 1, () -> time(fc.get())),
                new Workloads.Workload("pattern_resnet18_fc_by_conv1_weight_mb", "MB", 1, () -> allocated(fc.get())),
                new Workloads.Workload("pattern_resnet18_maxpool_ms", "ms", 2, () -> time(pool.get())),
                new Workloads.Workload("pattern_resnet18_maxpool_mb", "MB", 1, () -> allocated(pool.get())),
                new Workloads.Workload("pattern_convnet_relu_ms", "ms", 2, () -> time(convnet.get())),
                new Workloads.Workload("pattern_convnet_relu_mb", "MB", 1, () -> allocated(convnet.get())));
    }

    private static GraphJacobian resnet18(String of, String wrt) {
        ModelWorkloads.Imported m = ModelWorkloads.load("resnet18_224");
        return ProgramJacobians.of(m.program(), m.options(), of, wrt);
    }

    /** relu(conv2d(x, w, padding=1)) for x [1, 16, 32, 32], w [16, 16, 3, 3], by x. */
    static GraphJacobian convnet() {
        Tensor x = Workloads.random(DType.FLOAT32, 3, 1, 1, 16, 32, 32).setRequiresGrad(true);
        Tensor w = Workloads.random(DType.FLOAT32, 4, 1, 16, 16, 3, 3).setRequiresGrad(true);
        Tensor c = Ops.apply(OpRegistry.create("conv2d", new LinkedHashMap<>(Map.of("padding", new int[] {1, 1}))), x, w);
        return GraphJacobian.of(Ops.relu(c), x);
    }

    /** Built afresh each run (a GraphJacobian keeps the sets it found). */
    private static Pattern build(GraphJacobian j) {
        Pattern p = GraphJacobian.of(j.output(), j.wrt()).pattern(Sparsity.GLOBAL);
        if (p.nnz() == 0) {
            throw new IllegalStateException("an empty pattern");
        }
        return p;
    }

    private static DoubleSupplier time(GraphJacobian j) {
        return () -> {
            long t0 = System.nanoTime();
            build(j);
            return (System.nanoTime() - t0) / 1e6;
        };
    }

    private static DoubleSupplier allocated(GraphJacobian j) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        return () -> {
            long before = threads.getCurrentThreadAllocatedBytes();
            build(j);
            return (threads.getCurrentThreadAllocatedBytes() - before) / 1e6;
        };
    }
}
