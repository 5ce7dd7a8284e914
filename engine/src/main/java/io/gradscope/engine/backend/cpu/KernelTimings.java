package io.gradscope.engine.backend.cpu;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Times each {@link KernelChoice}'s candidates on shapes of its class (Note [Choices by measurement]):
 * products of an MLP's and a transformer's sizes and square ones, 3x3 convolutions of resnet18's first and third
 * stages (64 channels on 56x56, 256 on 14x14), batch one. The candidates of a choice run in turns,
 * round after round, so that a change in the machine's load falls on all of them; each keeps its
 * best timed round, after warm rounds (see {@link #best}) bounded by the choice's share of {@link
 * #BUDGET_NANOS}.
 */
final class KernelTimings {
    private KernelTimings() {
    }

    /** Warm rounds end once the JIT has finished no compile for this long (a compile on a busy machine takes seconds). */
    private static final long JIT_QUIET_NANOS = 300_000_000L;
    /**
     * Warm rounds run at least this long: a kernel is compiled once it is hot, so a JIT that has
     * finished nothing lately may not have started yet (a 0.1 ms product needs hundreds of calls).
     */
    private static final long WARM_NANOS = 250_000_000L;
    /** A candidate is warm once a round takes at most this times its round before. */
    private static final double STEADY = 1.25;
    /** Marks a choice's times taken before its candidates were warm (the budget ran out first). */
    static final String UNSETTLED = "unsettled";
    /** Warm rounds at least, and timed rounds, per choice. */
    private static final int WARM = 2;
    private static final int TIMED = 5;
    /** A choice's warm rounds may run this long even past the budget (the JIT must be done before the timing counts). */
    private static final long MIN_SHARE_NANOS = 1_500_000_000L;
    /** The whole measurement's time, shared evenly between the choices. */
    static final long BUDGET_NANOS = 5_000_000_000L;

    /** Each choice's candidates and their best time, ms; a candidate that does not apply here is absent. */
    static Map<KernelChoice, Map<String, Double>> measure() {
        long end = System.nanoTime() + BUDGET_NANOS;
        Map<KernelChoice, Map<String, Double>> times = new EnumMap<>(KernelChoice.class);
        KernelChoice[] all = KernelChoice.values();
        for (KernelChoice c : all) {
            Map<String, Runnable> runs = new LinkedHashMap<>();
            for (String k : c.candidates) {
                Runnable r = candidate(c, k);
                if (r != null) {
                    runs.put(k, r);
                }
            }
            // Each choice gets an even share of what is left of the budget (past it, the rounds it must run).
            long now = System.nanoTime();
            times.put(c, best(runs, now + Math.max(MIN_SHARE_NANOS, (end - now) / (all.length - c.ordinal()))));
        }
        return times;
    }

    /**
     * Runs the candidates in turns: warm rounds for at least {@link #WARM_NANOS}, until the JIT has
     * finished no compile for {@link #JIT_QUIET_NANOS} and each candidate's round took at most
     * {@link #STEADY} times its round before (past {@code end}, no more: the times are then marked
     * unsettled), then {@link #TIMED} timed rounds, each candidate keeping its least time. Until the
     * optimizing compile of a Vector API kernel lands it runs ten to a hundred times slower, and on
     * a busy machine that compile waits seconds for a core: rounds counted alone timed the JIT.
     */
    static Map<String, Double> best(Map<String, Runnable> runs, long end) {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        boolean watch = jit != null && jit.isCompilationTimeMonitoringSupported();
        long compiled = watch ? jit.getTotalCompilationTime() : 0;
        long start = System.nanoTime();
        long quietSince = start;
        Map<String, Long> before = new LinkedHashMap<>();
        boolean settled = false;
        for (int round = 0; !settled; round++) {
            boolean steady = true;
            for (Map.Entry<String, Runnable> e : runs.entrySet()) {
                long t0 = System.nanoTime();
                e.getValue().run();
                long t = System.nanoTime() - t0;
                Long last = before.put(e.getKey(), t);
                steady &= last != null && t <= STEADY * last;
            }
            long now = System.nanoTime();
            long c = watch ? jit.getTotalCompilationTime() : compiled;
            if (c != compiled) {
                compiled = c;
                quietSince = now;
            }
            settled = round + 1 >= WARM && now - start >= WARM_NANOS && now - quietSince >= JIT_QUIET_NANOS && steady;
            if (now > end) {
                break;
            }
        }
        Map<String, Double> best = new LinkedHashMap<>();
        for (int round = 0; round < TIMED; round++) {
            for (Map.Entry<String, Runnable> e : runs.entrySet()) {
                long t0 = System.nanoTime();
                e.getValue().run();
                best.merge(e.getKey(), (System.nanoTime() - t0) / 1e6, Math::min);
            }
        }
        if (!settled) {
            best.put(UNSETTLED, 1.0);
        }
        return best;
    }

    /** One timed run of candidate {@code k} of {@code c} on its class's shapes, or null where it does not apply. */
    private static Runnable candidate(KernelChoice c, String k) {
        return c.isGemm() ? gemm(c, k) : conv(c, k);
    }

    private static Runnable gemm(KernelChoice c, String k) {
        if (k.equals("native") && !NativeGemm.loaded() || k.equals("java") && !CpuMatmul.VECTOR) {
            return null;
        }
        DType dt = c.name().startsWith("SGEMM") ? DType.FLOAT32 : DType.FLOAT64;
        // m, k, n. Small: an MLP's last layer, a head's product; medium: an MLP's layers at batch 128, a
        // transformer's projection; large: square products.
        int[][] shapes = switch (c) {
            case SGEMM_SMALL, DGEMM_SMALL -> new int[][] {{128, 512, 10}, {128, 64, 128}, {64, 256, 256}};
            case SGEMM_MEDIUM, DGEMM_MEDIUM -> new int[][] {{128, 784, 512}, {128, 512, 512}, {1024, 256, 256}};
            default -> new int[][] {{1024, 1024, 1024}};
        };
        List<Tensor[]> ops = new ArrayList<>();
        Random r = new Random(7);
        for (int[] s : shapes) {
            ops.add(new Tensor[] {random(r, dt, s[0], s[1]), random(r, dt, s[1], s[2]), Tensor.empty(dt, Device.CPU, s[0], s[2])});
        }
        return () -> {
            for (Tensor[] o : ops) {
                CpuMatmul.run(o[0], o[1], o[2], k);
            }
        };
    }

    private static Runnable conv(KernelChoice c, String k) {
        boolean large = c.name().endsWith("LARGE");
        int ch = large ? 64 : 256;
        int hw = large ? 56 : 14;
        Random r = new Random(11);
        Tensor x = random(r, DType.FLOAT32, 1, ch, hw, hw);
        Tensor w = random(r, DType.FLOAT32, ch, ch, 3, 3);
        Tensor g = random(r, DType.FLOAT32, 1, ch, hw, hw);
        Supplier<Tensor> run = switch (c) {
            case CONV_SMALL, CONV_LARGE -> forward(k, x, w, false);
            case CONV_INPUT_GRAD_SMALL, CONV_INPUT_GRAD_LARGE -> forward(k, g, w, true);
            default -> weightGrad(k, x, g);
        };
        // A kernel that declines these shapes (the direct one without 16-lane vectors) is no candidate.
        return run == null || run.get() == null ? null : () -> run.get();
    }

    /** The convolution (or, transposed, its input gradient) by kernel {@code k}, padding 1. */
    private static Supplier<Tensor> forward(String k, Tensor x, Tensor w, boolean transposed) {
        return switch (k) {
            case "direct" -> CpuMatmul.VECTOR ? () -> DirectConv.conv(x, w, transposed, 1, 1) : null;
            case "winograd" -> () -> WinogradConv.conv(x, w, transposed, 1, 1, true);
            default -> () -> Im2col.conv(x, w, transposed);
        };
    }

    private static Supplier<Tensor> weightGrad(String k, Tensor x, Tensor g) {
        return switch (k) {
            case "direct" -> CpuMatmul.VECTOR ? () -> DirectWeightGrad.weightGrad(x, g, 1, 1, true) : null;
            case "winograd" -> () -> WinogradConv.weightGrad(x, g, 1, 1, true);
            default -> () -> Im2col.weightGrad(x, g);
        };
    }

    private static Tensor random(Random r, DType dt, int... shape) {
        int n = 1;
        for (int s : shape) {
            n *= s;
        }
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = r.nextGaussian();
        }
        Tensor t = Tensor.of(v, shape);
        return dt == DType.FLOAT64 ? t : t.to(dt);
    }
}
