package io.gradscope.bench;

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
                + "on (4096, 1024), building + running backward on a 10,000-node graph, training steps (forward + backward, "
                + "float32) of torchvision's resnet18 at 1x3x224x224 and of a 4-layer transformer encoder (d 256, 8 heads, "
                + "batch 8 x 128 tokens) imported from ONNX, and the Jacobian of a function of a "
                + "10,000-vector (elementwise, and banded with three diagonals) compressed by a row coloring against "
                + "dense (10,000 VJPs).",
            "The first lines say which kernels run and why: float32 and float64 products on the system's BLAS (OpenBLAS) "
                + "or Gradscope's Vector API GEMM, and float32 3x3 convolutions and their gradients on the direct, Winograd's "
                + "or im2col's kernel, each chosen by measurement on this machine (once, kept in a cache file; "
                + "--tune measures again), by the rule until that is in, or as GRADSCOPE_BLAS=java|native and "
                + "GRADSCOPE_CONV=direct|winograd|im2col ask. --json adds the machine (CPU model, flags, cores, "
                + "OpenBLAS core type) and the choices."})
public final class BenchCommand implements Callable<Integer> {
    @Option(names = "--runs", paramLabel = "N", description = "Timed runs per workload, at least 5 (default: ${DEFAULT-VALUE}).", defaultValue = "7")
    int runs;

    @Option(names = "--json", description = "Print one JSON object of medians instead of text.")
    boolean json;

    @Option(names = "--device", paramLabel = "cpu|cuda", defaultValue = "cpu",
            description = "cpu: the CPU workloads; cuda: GEMM at 4096 and elementwise bandwidth on the GPU (default: ${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--tune", description = "Measure the kernel choices again (a few seconds) and keep them for this machine, "
            + "before the workloads.")
    boolean tune;

    @Option(names = "--only", paramLabel = "KEY", description = "Run only the workloads whose key contains KEY (repeatable).")
    List<String> only = new ArrayList<>();

    @Option(names = "--compare-pytorch", description = "Also run each CPU workload in PyTorch (" + TorchBaseline.PYTHON
            + " with torch), in turns with Gradscope's runs, and print the ratio Gradscope/PyTorch; skipped with the reason "
            + "where there is no PyTorch.")
    boolean comparePytorch;

    @Override
    public Integer call() throws Exception {
        if (runs < 5) {
            throw new io.gradscope.engine.GradscopeException("--runs must be at least 5, not " + runs);
        }
        Map<String, Object> medians = new LinkedHashMap<>();
        List<Workloads.Workload> workloads = switch (device) {
            case "cpu" -> Workloads.all();
            case "cuda" -> {
                io.gradscope.engine.tensor.Backends.cuda();
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
        (json ? System.err : System.out).println("Java " + Runtime.version().feature() + ", garbage collector: " + collector()
                + ", " + Runtime.getRuntime().availableProcessors() + " processors");
        if (device.equals("cpu")) {
            KernelLines.print(json ? System.err : System.out, tune);
        }
        TorchBaseline torch = comparePytorch && device.equals("cpu") ? startTorch() : null;
        Map<String, Object> torchMedians = new LinkedHashMap<>();
        Map<String, Object> ratios = new LinkedHashMap<>();
        Map<String, Object> torchThreadCounts = new LinkedHashMap<>();
        try {
            for (Workloads.Workload w : workloads) {
                if (!only.isEmpty() && only.stream().noneMatch(w.key()::contains)) {
                    continue;
                }
                String skip = torch == null ? "" : torch.setup(w.key());
                DoubleSupplier run = w.setup().get();
                double[] v;
                double[] t = null;
                int torchThreads = 0;
                if (skip == null) {
                    double[][] both = measureInTurns(run, w.warmup(), runs, torch, w.key(), higherIsBetter(w.unit()));
                    v = both[0];
                    t = both[1];
                    torchThreads = (int) both[2][0];
                } else {
                    v = measure(run, w.warmup(), runs);
                }
                double median = v[v.length / 2];
                medians.put(w.key(), round(median));
                if (!json) {
                    System.out.printf("%-32s median %10.3f %-7s (min %.3f, max %.3f, %d runs)%n", w.key(), median, w.unit(),
                            v[0], v[v.length - 1], v.length);
                }
                if (t != null) {
                    double tm = t[t.length / 2];
                    torchMedians.put(w.key(), round(tm));
                    torchThreadCounts.put(w.key(), torchThreads);
                    ratios.put(w.key(), round(median / tm));
                    if (!json) {
                        boolean faster = higherIsBetter(w.unit()) ? median > tm : median < tm;
                        System.out.printf("%-32s median %10.3f %-7s (min %.3f, max %.3f)  Gradscope/PyTorch %.3fx (%s)%n",
                                "  pytorch, set_num_threads(" + torchThreads + ")", tm, w.unit(), t[0],
                                t[t.length - 1], median / tm, faster ? "faster" : "slower");
                    }
                } else if (torch != null && !json) {
                    System.out.printf("%-32s %s%n", "  pytorch", "skipped: " + skip);
                }
            }
        } finally {
            if (torch != null) {
                torch.close();
            }
        }
        if (json) {
            if (device.equals("cpu")) {
                medians.put("machine", KernelLines.machine());
                medians.put("kernels", KernelLines.choices());
            }
            if (torch != null) {
                medians.put("pytorch", torchMedians);
                medians.put("pytorch_threads", torchThreadCounts);
                medians.put("gradscope_over_pytorch", ratios);
            }
            System.out.println(new ObjectMapper().writeValueAsString(medians));
        }
        return 0;
    }

    /** The running JVM's collector (G1, Parallel, Serial, or the name its first bean gives). */
    static String collector() {
        return java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(java.lang.management.GarbageCollectorMXBean::getName)
                .map(n -> switch (n) {
                    case "G1 Young Generation", "G1 Old Generation" -> "G1";
                    case "PS Scavenge", "PS MarkSweep" -> "Parallel";
                    case "Copy", "MarkSweepCompact" -> "Serial";
                    default -> n;
                })
                .findFirst().orElse("unknown");
    }

    private TorchBaseline startTorch() {
        Object t = TorchBaseline.start();
        if (t instanceof TorchBaseline baseline) {
            (json ? System.err : System.out).println("Comparing with " + baseline.describe() + "; runs taken in turns.");
            return baseline;
        }
        (json ? System.err : System.out).println("PyTorch comparison skipped: " + t);
        return null;
    }

    private static boolean higherIsBetter(String unit) {
        return unit.contains("FLOP") || unit.contains("/s");
    }

    /**
     * Warms both up, then takes the timed runs in turns (Gradscope, then PyTorch at each thread
     * count; each turn the last of a burst of runs: at least {@link #BURST} and at least {@link #BURST_MS}
     * ms of them, the same rule on both sides, each after {@link #QUIET_MS} idle), so a change in the machine's load falls on all of them. Returns Gradscope's figures
     * and those of PyTorch's better thread count (by median), each sorted, and that count.
     */
    private static final int BURST = 3;
    /**
     * A turn's burst lasts at least this long: three runs of a 0.5 ms workload right after the
     * other side's turn timed caches and branch predictors still full of the other's work.
     */
    static final int BURST_MS = 20;
    /**
     * Each turn starts after this long idle: OpenBLAS's threads spin for about 2^28 cycles after a
     * product (0.1 s at 2.7 GHz), and in turns one side's spinning threads took a core from the
     * other's turn: PyTorch's MLP step measured 12.0 and 12.6 ms right after Gradscope's turn,
     * 10.1 and 9.8 ms with 250 ms between turns (Gradscope's 5.8 and 6.6 against 6.8 and 6.6).
     */
    static final int QUIET_MS = 150;

    static double[][] measureInTurns(DoubleSupplier run, int warmup, int runs, TorchBaseline torch, String key,
                                     boolean higherBetter) throws java.io.IOException {
        warmUp(run, warmup);
        int[] threads = torch.threads();
        double[] v = new double[runs];
        double[][] t = new double[threads.length][runs];
        for (int i = 0; i < runs; i++) {
            // Each turn is a burst of back-to-back runs with the last one kept, on both sides: the steady
            // state of a loop, not a first run after the other framework's turn.
            quiet();
            long until = System.nanoTime() + BURST_MS * 1_000_000L;
            for (int b = 1; b < BURST || System.nanoTime() < until; b++) {
                run.getAsDouble();
            }
            v[i] = run.getAsDouble();
            quiet();
            double[] r = torch.run(key, BURST, BURST_MS);
            for (int j = 0; j < threads.length; j++) {
                t[j][i] = r[j];
            }
        }
        Arrays.sort(v);
        int best = 0;
        for (int j = 0; j < threads.length; j++) {
            Arrays.sort(t[j]);
            double mj = t[j][runs / 2];
            double mb = t[best][runs / 2];
            if (higherBetter ? mj > mb : mj < mb) {
                best = j;
            }
        }
        return new double[][] {v, t[best], {threads[best]}};
    }

    private static final long JIT_QUIET_NANOS = 1_000_000_000L;
    private static final long WARM_LIMIT_NANOS = 5_000_000_000L;

    /**
     * At least {@code runs} untimed runs, then more until the JIT has finished no compile for 1 s
     * (at most 5 s). The optimizing compile of a GEMM kernel takes about a second on a busy 2-core
     * machine, and until it lands the kernel runs 20 times slower: a count of runs alone (16 of a
     * 512 product are 30 ms) timed the JIT, not the kernel. The JIT's time only grows when a
     * compile ends, so the quiet spell is as long as that compile, not shorter.
     */
    static void warmUp(DoubleSupplier run, int runs) {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        boolean watch = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        long compiled = watch ? jit.getTotalCompilationTime() : 0;
        long quietSince = start;
        for (int i = 0; ; i++) {
            long now = System.nanoTime();
            if (watch) {
                long c = jit.getTotalCompilationTime();
                if (c != compiled) {
                    compiled = c;
                    quietSince = now;
                }
            }
            boolean settled = !watch || now - quietSince >= JIT_QUIET_NANOS;
            if (i >= runs && (settled || now - start >= WARM_LIMIT_NANOS)) {
                return;
            }
            run.getAsDouble();
        }
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** Runs {@code warmup} untimed (see {@link #warmUp}), then {@code runs} timed; returns the figures sorted. */
    /** Waits {@link #QUIET_MS} (the other side's threads stop spinning). */
    private static void quiet() {
        try {
            Thread.sleep(QUIET_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static double[] measure(DoubleSupplier run, int warmup, int runs) {
        warmUp(run, warmup);
        double[] v = new double[runs];
        for (int i = 0; i < runs; i++) {
            v[i] = run.getAsDouble();
        }
        Arrays.sort(v);
        return v;
    }
}
