package io.gradscope.engine.device.cpu;

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
 * products of an MLP's and a transformer's sizes and square ones, 3x3 convolutions with the channels of resnet18's
 * first and third stages on planes of each class (64 channels on 32x32, 256 on 7x7), batch one. First every candidate of every choice runs in
 * turns until the JIT has compiled them all ({@link #warm}); then each choice's candidates run in turns,
 * round after round for {@link #TIMED_NANOS}, so that a change in the machine's load falls on all of them,
 * each keeping its best round. The whole takes about three seconds on a quiet machine, at most
 * {@link #WARM_LIMIT_NANOS} plus a window per choice on a busy one.
 */
final class KernelTimings {
    private KernelTimings() {
    }

    /**
     * Warm rounds end once the JIT has spent at most {@link #JIT_BUSY_MS} compiling in the last
     * {@link #JIT_QUIET_NANOS} (a JVM's compilers never fall wholly silent: small methods elsewhere
     * keep being compiled, a millisecond or less each).
     */
    private static final long JIT_QUIET_NANOS = 200_000_000L;
    private static final long JIT_BUSY_MS = 40;
    /**
     * Warm rounds run at least this long: a kernel is compiled once it is hot, so a JIT that has
     * finished nothing lately may not have started yet.
     */
    private static final long WARM_NANOS = 300_000_000L;
    /**
     * Warm rounds stop here even if the JIT is still busy (a compile on a loaded machine waits seconds
     * for a core); a choice whose times still fall is then marked {@link #UNSETTLED} and keeps the rule.
     */
    static final long WARM_LIMIT_NANOS = 3_000_000_000L;
    /** Marks times taken before the candidates were warm. */
    static final String UNSETTLED = "unsettled";
    /** Each choice's timed window, and the rounds it runs at least. */
    static final long TIMED_NANOS = 120_000_000L;
    private static final int TIMED = 3;

    /** Each choice's candidates and their best time, ms; a candidate that does not apply here is absent. */
    static Map<KernelChoice, Map<String, Double>> measure() {
        Map<KernelChoice, Map<String, Runnable>> all = candidates();
        boolean quiet = warm(all.values());
        Map<KernelChoice, Map<String, Double>> times = new EnumMap<>(KernelChoice.class);
        all.forEach((c, runs) -> {
            // Two half windows: where the JIT was still busy after the warm rounds, a choice whose
            // candidates got no faster from the first half to the second is settled all the same.
            Map<String, Double> first = best(runs, TIMED_NANOS / 2);
            Map<String, Double> second = best(runs, TIMED_NANOS / 2);
            Map<String, Double> best = new LinkedHashMap<>(first);
            second.forEach((k, ms) -> best.merge(k, ms, Math::min));
            if (!quiet && !steady(first, second)) {
                best.put(UNSETTLED, 1.0);
            }
            times.put(c, best);
        });
        return times;
    }

    /** Each choice's candidates that apply here, on its class's shapes. */
    private static Map<KernelChoice, Map<String, Runnable>> candidates() {
        Map<KernelChoice, Map<String, Runnable>> all = new EnumMap<>(KernelChoice.class);
        for (KernelChoice c : KernelChoice.values()) {
            Map<String, Runnable> runs = new LinkedHashMap<>();
            for (String k : c.candidates) {
                Runnable r = c.isGemm() ? gemm(c, k) : conv(c, k);
                if (r != null) {
                    runs.put(k, r);
                }
            }
            all.put(c, runs);
        }
        return all;
    }

    /**
     * Runs every candidate in turns for at least {@link #WARM_NANOS}, until the JIT has finished no
     * compile for {@link #JIT_QUIET_NANOS}; false when {@link #WARM_LIMIT_NANOS} came first (then each
     * choice is settled only where its candidates' times are {@link #steady}). Until the
     * optimizing compile of a Vector API kernel lands it runs ten to a hundred times slower: warming
     * all kernels together lets the JIT compile them while the others run, instead of one choice at a time.
     */
    static boolean warm(Iterable<Map<String, Runnable>> all) {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        boolean watch = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        // The compile time at each round's end, to look back JIT_QUIET_NANOS.
        java.util.ArrayDeque<long[]> rounds = new java.util.ArrayDeque<>();
        for (int round = 0;; round++) {
            for (Map<String, Runnable> runs : all) {
                runs.values().forEach(Runnable::run);
            }
            long now = System.nanoTime();
            long compiled = watch ? jit.getTotalCompilationTime() : 0;
            rounds.addLast(new long[] {now, compiled});
            while (rounds.size() > 1 && now - rounds.peekFirst()[0] > JIT_QUIET_NANOS) {
                long[] first = rounds.pollFirst();
                if (now - rounds.peekFirst()[0] < JIT_QUIET_NANOS) {
                    rounds.addFirst(first); // the oldest round still JIT_QUIET_NANOS back
                    break;
                }
            }
            long[] back = rounds.peekFirst();
            boolean quiet = now - back[0] >= JIT_QUIET_NANOS && compiled - back[1] <= JIT_BUSY_MS;
            if (round >= 1 && now - start >= WARM_NANOS && quiet) {
                return true;
            }
            if (now - start > WARM_LIMIT_NANOS) {
                return false;
            }
        }
    }

    /** A candidate still getting faster (its second time under this fraction of its first) may not be compiled yet. */
    static final double STEADY = 0.9;

    /** Whether no candidate got faster than {@link #STEADY} of its first time in {@code second}. */
    static boolean steady(Map<String, Double> first, Map<String, Double> second) {
        for (Map.Entry<String, Double> e : second.entrySet()) {
            Double before = first.get(e.getKey());
            if (before == null || e.getValue() < STEADY * before) {
                return false;
            }
        }
        return true;
    }

    /** Runs the candidates in turns for {@code window} ns and at least {@link #TIMED} rounds; each keeps its least time, ms. */
    static Map<String, Double> best(Map<String, Runnable> runs, long window) {
        Map<String, Double> best = new LinkedHashMap<>();
        long end = System.nanoTime() + window;
        for (int round = 0; round < TIMED || System.nanoTime() < end; round++) {
            for (Map.Entry<String, Runnable> e : runs.entrySet()) {
                long t0 = System.nanoTime();
                e.getValue().run();
                best.merge(e.getKey(), (System.nanoTime() - t0) / 1e6, Math::min);
            }
        }
        return best;
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
        // resnet18's channel counts on smaller planes of each class.
        boolean large = c.name().endsWith("LARGE");
        int ch = large ? 64 : 256;
        int hw = large ? 32 : 7;
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
