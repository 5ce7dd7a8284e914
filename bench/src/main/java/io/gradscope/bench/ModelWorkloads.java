package io.gradscope.bench;

import io.gradscope.bench.Workloads.Workload;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.onnx.GeneratedWeights;
import io.gradscope.engine.onnx.OnnxImport;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.stream.Stream;

/**
 * The bench's whole-model training steps: a model exported from PyTorch (models/*.onnx beside this class, weights
 * generated, see {@link GeneratedWeights}) imported as a program the way {@code gradscope import} does,
 * then run forward and backward (the sum of its output) in float32, values released as a training
 * run releases them. torch_bench.py times the same torchvision / torch.nn module, forward plus backward.
 */
public final class ModelWorkloads {
    private ModelWorkloads() {
    }

    /**
     * Untimed steps before the timed ones: a training loop's steady state, which the JIT reaches late
     * here. A step runs each of the program's few hundred nodes once, so the per-node code (the
     * interpreter, the op's shape checks, the step's lifetimes) reaches the optimizing compiler's
     * thresholds only after tens of steps, and the compiler keeps a core of the two busy meanwhile:
     * resnet18's step went from 130-160 ms (steps 5-20) to 86-100 ms from about step 60, with the
     * JIT's compile time still growing 6 s over the first 80 steps (-XX:+PrintCompilation, 2-core
     * VM, 2026-12-06). bench's usual rule (runs until the JIT is quiet for 1 s, at most 5 s) stopped
     * at about step 25 of that climb.
     */
    static final int WARM_STEPS = 60;

    static List<Workload> all() {
        return List.of(new Workload("resnet18_step_ms", "ms", WARM_STEPS, () -> step("resnet18_224")),
                new Workload("transformer_encoder_step_ms", "ms", WARM_STEPS, () -> step("transformer_encoder")));
    }

    /** How the bench runs a model's step: recomputation by segments, values not kept for inspection. */
    public static final MemoryOptions MEMORY = new MemoryOptions(RematPolicy.SEGMENTS, false);

    /** A bench model imported as {@code gradscope import} does, with its leaves (float32) in the options. */
    public record Imported(Program program, RunOptions options) {
    }

    /** Imports models/MODEL.onnx (weights generated) into a temporary folder, removed at exit; a random input. */
    public static Imported load(String model) {
        try {
            Path dir = Files.createTempDirectory("gradscope-bench-" + model);
            Path stripped = dir.resolve("stripped.onnx");
            try (InputStream in = ModelWorkloads.class.getResourceAsStream("models/" + model + ".onnx")) {
                if (in == null) {
                    throw new GradscopeException("the bench's model models/" + model + ".onnx is missing from the build");
                }
                Files.copy(in, stripped);
            }
            Path full = GeneratedWeights.fill(stripped, dir.resolve("model.onnx"));
            Path out = dir.resolve("import");
            OnnxImport.Result r = OnnxImport.run(full, out, new OnnxImport.Options("sum", Map.of(), true));
            Program p = Program.load(r.program());
            // the leaves read once, as a training loop holds its parameters
            Map<String, Tensor> leaves = new HashMap<>();
            try (Stream<Path> files = Files.list(out.resolve("params"))) {
                for (Path f : files.toList()) {
                    String name = f.getFileName().toString().replaceFirst("\\.npy$", "");
                    Tensor t = Npy.read(f);
                    leaves.put(name, t.dtype() == DType.INT64 ? t : t.to(DType.FLOAT32));
                }
            }
            int[] shape = p.check(DType.FLOAT32).stream().filter(l -> l.name().equals(r.inputs().get("input"))).findFirst()
                    .orElseThrow().shape();
            leaves.put(r.inputs().get("input"), Workloads.random(DType.FLOAT32, 21, 1, shape));
            // the program checks that its leaves' files exist (their values come from the map): removed at exit
            Runtime.getRuntime().addShutdownHook(new Thread(() -> remove(dir)));
            return new Imported(p, new RunOptions(DType.FLOAT32, 0, leaves));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static DoubleSupplier step(String model) {
        Imported m = load(model);
        Program p = m.program();
        RunOptions options = m.options();
        MemoryOptions memory = MEMORY;
        return () -> {
            long t0 = System.nanoTime();
            io.gradscope.engine.run.ProgramRun run = p.run(options, memory, (phase, done, total) -> { });
            double ms = (System.nanoTime() - t0) / 1e6;
            // The gradients let go, as a training loop does once its optimizer has read them
            // (PyTorch's turn sets p.grad = None): their arrays go back to the allocator's cache
            // for the next step instead of waiting for the collector.
            if (run.gradients() != null) {
                run.gradients().byNode().values().forEach(g -> g.storage().release());
            }
            return ms;
        };
    }

    private static void remove(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path f : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException ignored) {
            // a temporary folder; the OS cleans it up
        }
    }
}
