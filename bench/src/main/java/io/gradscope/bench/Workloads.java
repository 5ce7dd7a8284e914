package io.gradscope.bench;

import io.gradscope.engine.alloc.RefCounts;
import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.autograd.Sgd;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleSupplier;

/** The workloads of {@code gradscope bench}; each run returns its figure (GFLOP/s, µs or ms). */
final class Workloads {
    private Workloads() {
    }

    record Workload(String key, String unit, int warmup, java.util.function.Supplier<DoubleSupplier> setup) {
    }

    /** The GPU workloads: GEMM at 4096 (TFLOP/s) and an elementwise add's memory bandwidth (GB/s). */
    static List<Workload> cuda() {
        List<Workload> w = new ArrayList<>();
        for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            String key = (dt == DType.FLOAT32 ? "cuda_sgemm" : "cuda_dgemm") + "_4096_tflops";
            w.add(new Workload(key, "TFLOP/s", 2, () -> {
                int n = 4096;
                Tensor a = random(dt, 1, 1, n, n).toDevice(io.gradscope.engine.tensor.Device.CUDA);
                Tensor b = random(dt, 2, 1, n, n).toDevice(io.gradscope.engine.tensor.Device.CUDA);
                return () -> {
                    long t0 = System.nanoTime();
                    try (var off = GradMode.disable()) {
                        Ops.matmul(a, b).storage().release();
                    }
                    return 2.0 * n * n * n / ((System.nanoTime() - t0) / 1e9) / 1e12;
                };
            }));
        }
        w.add(new Workload("cuda_elementwise_add_gbps", "GB/s", 3, () -> {
            int n = 1 << 26;
            Tensor a = Tensor.zeros(DType.FLOAT32, io.gradscope.engine.tensor.Device.CUDA, n);
            Tensor b = Tensor.zeros(DType.FLOAT32, io.gradscope.engine.tensor.Device.CUDA, n);
            return () -> {
                long t0 = System.nanoTime();
                try (var off = GradMode.disable()) {
                    Ops.add(a, b).storage().release();
                }
                // Two reads and one write of n floats.
                return 3.0 * 4 * n / ((System.nanoTime() - t0) / 1e9) / 1e9;
            };
        }));
        return w;
    }

    static List<Workload> all() {
        List<Workload> w = new ArrayList<>();
        for (int n : new int[] {256, 512, 1024, 2048}) {
            w.add(gemm("sgemm_" + n + "_gflops", DType.FLOAT32, n));
            w.add(gemm("dgemm_" + n + "_gflops", DType.FLOAT64, n));
        }
        w.add(new Workload("sgemm_1024_plain_loops_gflops", "GFLOP/s", 1, () -> plainSgemm(1024)));
        w.add(new Workload("op_overhead_us", "µs", 1500, () -> Workloads::opOverhead));
        // Warm-up until the JIT has compiled the vector kernels (before that the Vector API runs boxed, 10-50x slower).
        w.add(new Workload("mlp_step_ms", "ms", 30, Workloads::mlpStep));
        w.add(new Workload("layernorm_fwdbwd_ms", "ms", 10, Workloads::layerNorm));
        w.add(new Workload("softmax_fwdbwd_ms", "ms", 10, Workloads::softmax));
        w.add(new Workload("graph_10k_build_backward_ms", "ms", 5, () -> Workloads::graph10k));
        w.addAll(ModelWorkloads.all());
        w.addAll(DerivativeWorkloads.all());
        w.addAll(JacobianWorkloads.all());
        w.addAll(PatternWorkloads.all());
        return w;
    }

    static Tensor random(DType dt, long seed, double scale, int... shape) {
        Random r = new Random(seed);
        int n = 1;
        for (int d : shape) {
            n *= d;
        }
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian() * scale;
        }
        return Tensor.fromDoubles(dt, d, shape);
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }

    private static Workload gemm(String key, DType dt, int n) {
        return new Workload(key, "GFLOP/s", Math.max(10, (int) ((1L << 31) / n / n / n)), () -> gemmRun(dt, n));
    }

    private static DoubleSupplier gemmRun(DType dt, int n) {
        Tensor a = random(dt, 1, 1, n, n);
        Tensor b = random(dt, 2, 1, n, n);
        return () -> {
            long t0 = System.nanoTime();
            Tensor c;
            try (var off = GradMode.disable()) {
                c = Ops.matmul(a, b);
            }
            double gflops = 2.0 * n * n * n / ((System.nanoTime() - t0) / 1e9) / 1e9;
            // Given back, as PyTorch frees its output when the last reference goes: the next product
            // reuses the block instead of waiting for the collector.
            c.storage().release();
            return gflops;
        };
    }

    /** The same product with the plain Java loops (no Vector API): the in-process baseline. */
    private static DoubleSupplier plainSgemm(int n) {
        float[] a = new float[n * n];
        float[] b = new float[n * n];
        float[] c = new float[n * n];
        Random r = new Random(3);
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) r.nextGaussian();
            b[i] = (float) r.nextGaussian();
        }
        return () -> {
            long t0 = System.nanoTime();
            io.gradscope.engine.device.cpu.CpuBackend.plainSgemm(a, b, c, n);
            return 2.0 * n * n * n / ((System.nanoTime() - t0) / 1e9) / 1e9;
        };
    }

    /** Forward + backward per op, over a chain of 1,000 elementwise ops on shape (4,). */
    private static double opOverhead() {
        Tensor x = random(DType.FLOAT32, 4, 1, 4).setRequiresGrad(true);
        Tensor c = Tensor.fromDoubles(DType.FLOAT32, new double[] {0.999, 1.001, 0.998, 1.002}, 4);
        long t0 = System.nanoTime();
        Tensor y = x;
        for (int i = 0; i < 999; i++) {
            y = (i & 1) == 0 ? Ops.mul(y, c) : Ops.add(y, c);
        }
        Backward.run(Ops.sum(y));
        return (System.nanoTime() - t0) / 1e3 / 1000;
    }

    /** One SGD step of a 784-512-512-10 MLP with ReLU and fused cross-entropy, batch 128, float32. */
    private static DoubleSupplier mlpStep() {
        Tensor x = random(DType.FLOAT32, 5, 1, 128, 784);
        long[] labels = new long[128];
        for (int i = 0; i < labels.length; i++) {
            labels[i] = i % 10;
        }
        Tensor y = Tensor.ofLongs(labels, 128);
        Tensor[] params = {
            random(DType.FLOAT32, 6, 1 / Math.sqrt(784), 784, 512).setRequiresGrad(true),
            random(DType.FLOAT32, 7, 0, 512).setRequiresGrad(true),
            random(DType.FLOAT32, 8, 1 / Math.sqrt(512), 512, 512).setRequiresGrad(true),
            random(DType.FLOAT32, 9, 0, 512).setRequiresGrad(true),
            random(DType.FLOAT32, 10, 1 / Math.sqrt(512), 512, 10).setRequiresGrad(true),
            random(DType.FLOAT32, 11, 0, 10).setRequiresGrad(true)};
        List<Tensor> kept = List.of(params);
        return () -> {
            long t0 = System.nanoTime();
            // A training loop gives its step's buffers back for the next step (the allocator reuses them).
            RefCounts step = new RefCounts(false);
            try (var on = step.install()) {
                Tensor h1 = Ops.relu(Ops.add(Ops.matmul(x, params[0]), params[1]));
                Tensor h2 = Ops.relu(Ops.add(Ops.matmul(h1, params[2]), params[3]));
                Tensor loss = Ops.crossEntropy(Ops.add(Ops.matmul(h2, params[4]), params[5]), y);
                Backward.run(loss);
                // In place, as PyTorch's p.sub_(p.grad, alpha=0.01).
                Sgd.step(kept, 0.01);
            }
            step.endStep(kept);
            return ms(t0);
        };
    }

    /** The op's forward, then its VJP for a fixed upstream gradient: exactly the op's own work. */
    private static double fwdBwd(java.util.function.Supplier<Tensor> forward, Tensor upstream) {
        long t0 = System.nanoTime();
        RefCounts step = new RefCounts(false);
        try (var on = step.install()) {
            Tensor y = forward.get();
            Node n = Node.of(y);
            try (var off = GradMode.disable()) {
                n.op().vjp(n.context(), upstream);
            }
        }
        step.endStep(java.util.List.of()); // the output, saved tensors and gradients go back to the allocator
        return ms(t0);
    }

    private static DoubleSupplier layerNorm() {
        Tensor x = random(DType.FLOAT32, 12, 1, 4096, 1024).setRequiresGrad(true);
        Tensor w = random(DType.FLOAT32, 13, 1, 1024).setRequiresGrad(true);
        Tensor b = random(DType.FLOAT32, 14, 1, 1024).setRequiresGrad(true);
        Tensor g = random(DType.FLOAT32, 15, 1, 4096, 1024);
        return () -> fwdBwd(() -> Ops.layerNorm(x, w, b, 1e-5), g);
    }

    private static DoubleSupplier softmax() {
        Tensor x = random(DType.FLOAT32, 16, 1, 4096, 1024).setRequiresGrad(true);
        Tensor g = random(DType.FLOAT32, 17, 1, 4096, 1024);
        return () -> fwdBwd(() -> Ops.softmax(x, -1), g);
    }

    /** Builds a 10,000-node graph of small tensors (with fan-out) and runs backward on it. */
    private static double graph10k() {
        Tensor x = random(DType.FLOAT32, 18, 1, 8).setRequiresGrad(true);
        long t0 = System.nanoTime();
        Tensor a = x;
        Tensor b = x;
        // One node per mul, two per tanh+add: 6,000 steps make 10,000 nodes, each used twice.
        for (int i = 0; i < 6000; i++) {
            Tensor next = (i % 3 == 0) ? Ops.mul(a, b) : Ops.add(a, Ops.tanh(b));
            b = a;
            a = next;
        }
        Tensor s = Ops.sum(a);
        Backward.run(s);
        return ms(t0);
    }
}
