package io.gradscope.bench;

import io.gradscope.engine.forward.Hvp;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.run.Directional;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * Forward mode against reverse mode on one MLP program (784-512-512-10, batch 128, float32): a
 * forward pass, a JVP pass (forward carrying a tangent of W1), a gradient (forward + backward) and a
 * Hessian-vector product (forward-over-reverse), each in ms.
 */
final class DerivativeWorkloads {
    private DerivativeWorkloads() {
    }

    static final String MLP = """
            x = input(128, 784)
            y = labels(128, classes=10)
            W1 = param(784, 512)
            b1 = param(512, init="zeros")
            W2 = param(512, 512)
            b2 = param(512, init="zeros")
            W3 = param(512, 10)
            h1 = relu(x @ W1 + b1)
            h2 = relu(h1 @ W2 + b2)
            loss = cross_entropy(h2 @ W3, y)
            """;

    static List<Workloads.Workload> all() {
        return List.of(
                new Workloads.Workload("mlp_forward_ms", "ms", 5, () -> timed(DerivativeWorkloads::forward)),
                new Workloads.Workload("mlp_jvp_ms", "ms", 5, () -> timed(DerivativeWorkloads::jvp)),
                new Workloads.Workload("mlp_gradient_ms", "ms", 5, () -> timed(DerivativeWorkloads::gradient)),
                new Workloads.Workload("mlp_hvp_ms", "ms", 3, () -> timed(DerivativeWorkloads::hvp)));
    }

    private static final Program PROGRAM = Program.parse("mlp.grad", MLP);
    /** The leaves drawn once and given as inputs, so each pass times only its computation. */
    private static final RunOptions OPTIONS = leaves();
    private static final Tensor V = Workloads.random(DType.FLOAT32, 9, 0.01, 784, 512);

    private static RunOptions leaves() {
        RunOptions drawn = new RunOptions(DType.FLOAT32, 0, Map.of());
        Map<String, Tensor> values;
        try (var off = GradMode.disable()) {
            values = PROGRAM.evaluate(drawn).values();
        }
        Map<String, Tensor> leaves = new java.util.HashMap<>();
        PROGRAM.check(DType.FLOAT32).forEach(l -> leaves.put(l.name(), values.get(l.name())));
        return new RunOptions(DType.FLOAT32, 0, leaves);
    }

    private static DoubleSupplier timed(Runnable r) {
        return () -> {
            long t0 = System.nanoTime();
            r.run();
            return (System.nanoTime() - t0) / 1e6;
        };
    }

    private static void forward() {
        try (var off = GradMode.disable()) {
            PROGRAM.evaluate(OPTIONS);
        }
    }

    private static void jvp() {
        Directional.jvp(PROGRAM, OPTIONS, "W1", V);
    }

    private static void gradient() {
        PROGRAM.run(OPTIONS);
    }

    private static void hvp() {
        Directional.hvp(PROGRAM, OPTIONS, "W1", V, Hvp.Method.FORWARD_OVER_REVERSE);
    }
}
