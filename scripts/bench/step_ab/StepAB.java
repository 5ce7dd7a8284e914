import io.gradscope.engine.memory.RematPolicy;
import io.gradscope.engine.onnx.GeneratedWeights;
import io.gradscope.engine.onnx.OnnxImport;
import io.gradscope.engine.program.MemoryOptions;
import io.gradscope.engine.program.Npy;
import io.gradscope.engine.program.Program;
import io.gradscope.engine.program.ProgramRun;
import io.gradscope.engine.program.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A bench model's training step (as scripts/bench/step_breakdown.sh runs it) under two settings of
 * gradscope.conv in turns, step by step in one JVM, so that the machine's load falls on both alike:
 * the median ms of each and the median of the pairs' ratios. -Dmodes=A,B (default im2col,auto).
 * Usage: scripts/bench/step_ab.sh [MODEL] [PAIRS]
 */
public final class StepAB {
    public static void main(String[] args) throws Exception {
        String[] modes = System.getProperty("modes", "im2col,auto").split(",");
        String model = args.length > 0 ? args[0] : "resnet18_224";
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Path dir = Files.createTempDirectory("breakdown");
        Path stripped = dir.resolve("stripped.onnx");
        Files.copy(Path.of("app/src/main/resources/io/gradscope/app/cli/bench/" + model + ".onnx"), stripped);
        Path full = GeneratedWeights.fill(stripped, dir.resolve("model.onnx"));
        Path out = dir.resolve("import");
        OnnxImport.Result r = OnnxImport.run(full, out, new OnnxImport.Options("sum", Map.of(), true));
        Program p = Program.load(r.program());
        Map<String, Tensor> leaves = new HashMap<>();
        try (var files = Files.list(out.resolve("params"))) {
            for (Path f : files.toList()) {
                Tensor t = Npy.read(f);
                leaves.put(f.getFileName().toString().replaceFirst("\\.npy$", ""), t.dtype() == DType.INT64 ? t : t.to(DType.FLOAT32));
            }
        }
        String input = r.inputs().get("input");
        int[] shape = p.check(DType.FLOAT32).stream().filter(l -> l.name().equals(input)).findFirst().orElseThrow().shape();
        Random rnd = new Random(21);
        double[] x = new double[Arrays.stream(shape).reduce(1, (a, b) -> a * b)];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        leaves.put(input, Tensor.fromDoubles(DType.FLOAT32, x, shape));
        RunOptions options = new RunOptions(DType.FLOAT32, 0, leaves);
        MemoryOptions memory = new MemoryOptions(RematPolicy.SEGMENTS, false);
        List<List<Double>> times = new ArrayList<>();
        for (String m : modes) {
            times.add(new ArrayList<>());
        }
        List<Double> ratios = new ArrayList<>();
        for (int s = 0; s < steps + 3; s++) {
            double[] pair = new double[modes.length];
            for (int i = 0; i < modes.length; i++) {
                // Each pair in the other order than the one before: neither setting always runs first.
                int which = s % 2 == 0 ? i : modes.length - 1 - i;
                System.setProperty("gradscope.conv", modes[which]);
                long t0 = System.nanoTime();
                ProgramRun run = p.run(options, memory, (phase, done, total) -> { });
                pair[which] = (System.nanoTime() - t0) / 1e6;
                if (run.gradients() != null) {
                    run.gradients().byNode().values().forEach(g -> g.storage().release());
                }
            }
            if (s >= 3) {
                for (int i = 0; i < modes.length; i++) {
                    times.get(i).add(pair[i]);
                }
                ratios.add(pair[modes.length - 1] / pair[0]);
            }
        }
        StringBuilder line = new StringBuilder(model + ", " + steps + " pairs:");
        for (int i = 0; i < modes.length; i++) {
            line.append(String.format(" %s median %.1f ms (min %.1f);", modes[i], median(times.get(i)),
                    times.get(i).stream().mapToDouble(Double::doubleValue).min().orElse(0)));
        }
        line.append(String.format(" %s / %s median of the pairs' ratios %.3f", modes[modes.length - 1], modes[0], median(ratios)));
        System.out.println(line);
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        return s.get(s.size() / 2);
    }
}
