package io.gradscope.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.DoubleSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gradscope bench}: fixed engine workloads, medians after warm-up, optionally as one JSON object. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measures engine speed on fixed workloads: each is warmed up, then run several times; "
                + "prints the median with min-max.",
            "Workloads: sgemm/dgemm at n = 256, 512, 1024, 2048 (GFLOP/s, all cores), the plain-loop sgemm at 1024 "
                + "as a baseline, per-op overhead (a chain of 1,000 elementwise ops on shape (4,), forward + backward), "
                + "an MLP training step (784-512-512-10, batch 128, float32), LayerNorm and softmax forward + backward "
                + "on (4096, 1024), building + running backward on a 10,000-node graph, and the Jacobian of a function of a "
                + "10,000-vector (elementwise, and banded with three diagonals) compressed by a row coloring against "
                + "dense (10,000 VJPs)."})
public final class BenchCommand implements Callable<Integer> {
    @Option(names = "--runs", description = "Timed runs per workload, at least 5 (default: ${DEFAULT-VALUE}).", defaultValue = "7")
    int runs;

    @Option(names = "--json", description = "Print one JSON object of medians instead of text.")
    boolean json;

    @Option(names = "--device", paramLabel = "cpu|cuda", defaultValue = "cpu",
            description = "cpu: the CPU workloads; cuda: GEMM at 4096 and elementwise bandwidth on the GPU (default: ${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--only", paramLabel = "KEY", description = "Run only the workloads whose key contains KEY (repeatable).")
    List<String> only = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        if (runs < 5) {
            throw new io.gradscope.engine.GradscopeException("--runs must be at least 5, not " + runs);
        }
        Map<String, Object> medians = new LinkedHashMap<>();
        List<Workloads.Workload> workloads = switch (device) {
            case "cpu" -> Workloads.all();
            case "cuda" -> {
                io.gradscope.engine.backend.Backends.cuda();
                yield Workloads.cuda();
            }
            default -> throw new io.gradscope.engine.GradscopeException("--device must be cpu or cuda, not '" + device + "'");
        };
        for (String key : only) {
            if (workloads.stream().noneMatch(w -> w.key().contains(key))) {
                throw new io.gradscope.engine.GradscopeException("--only " + key + ": no " + device + " workload's key contains '"
                        + key + "'; the workloads are " + String.join(", ", workloads.stream().map(Workloads.Workload::key).toList()));
            }
        }
        for (Workloads.Workload w : workloads) {
            if (!only.isEmpty() && only.stream().noneMatch(w.key()::contains)) {
                continue;
            }
            double[] v = measure(w.setup().get(), w.warmup(), runs);
            medians.put(w.key(), round(v[v.length / 2]));
            if (!json) {
                System.out.printf("%-32s median %10.3f %-7s (min %.3f, max %.3f, %d runs)%n", w.key(), v[v.length / 2], w.unit(),
                        v[0], v[v.length - 1], v.length);
            }
        }
        if (json) {
            System.out.println(new ObjectMapper().writeValueAsString(medians));
        }
        return 0;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** Runs {@code warmup} untimed, then {@code runs} timed; returns the figures sorted. */
    static double[] measure(DoubleSupplier run, int warmup, int runs) {
        for (int i = 0; i < warmup; i++) {
            run.getAsDouble();
        }
        double[] v = new double[runs];
        for (int i = 0; i < runs; i++) {
            v[i] = run.getAsDouble();
        }
        Arrays.sort(v);
        return v;
    }
}
