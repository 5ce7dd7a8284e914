package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel choices (Note [Choices by measurement]) from faked times: the fastest candidate wins,
 * one not timed never does, the user's setting beats any measurement, the cache keeps the winners
 * for the same machine facts only; and each GEMM the choice can name computes the same product.
 */
class KernelTunerTest {
    @AfterEach
    void backToTheRule() {
        System.clearProperty("gradscope.blas");
        KernelTuner.resetToRules();
    }

    /** Every choice measured with {@code fastest} (where it is a candidate) at 1 ms and the others at 2 or 3 ms; the winners adopted. */
    static void fakeTimes(String fastest) {
        Map<KernelChoice, Map<String, Double>> times = new EnumMap<>(KernelChoice.class);
        for (KernelChoice c : KernelChoice.values()) {
            Map<String, Double> t = new LinkedHashMap<>();
            double slower = 2;
            for (String k : c.candidates) {
                t.put(k, k.equals(fastest) ? 1.0 : slower++);
            }
            times.put(c, t);
        }
        KernelTuner.resetToRules();
        KernelTuner.adopt(KernelTuner.winners(times), "measured");
    }

    /** Each product and convolution falls in its class by its size; every choice has a key of its own. */
    @Test
    void classesBySize() {
        assertEquals(KernelChoice.SGEMM_SMALL, KernelChoice.gemm(true, 2L * 128 * 512 * 10));
        assertEquals(KernelChoice.SGEMM_MEDIUM, KernelChoice.gemm(true, 2L * 128 * 784 * 512));
        assertEquals(KernelChoice.DGEMM_MEDIUM, KernelChoice.gemm(false, (1L << 30) - 1));
        assertEquals(KernelChoice.DGEMM_LARGE, KernelChoice.gemm(false, 2L * 1024 * 1024 * 1024));
        assertEquals(KernelChoice.CONV_SMALL, KernelChoice.conv(KernelChoice.Conv.FORWARD, 14 * 14));
        assertEquals(KernelChoice.CONV_WEIGHT_GRAD_LARGE, KernelChoice.conv(KernelChoice.Conv.WEIGHT_GRAD, 56 * 56));
        assertEquals(KernelChoice.CONV_INPUT_GRAD_LARGE, KernelChoice.conv(KernelChoice.Conv.INPUT_GRAD, 4 * 16 * 16));
        for (KernelChoice c : KernelChoice.values()) {
            assertEquals(c, KernelChoice.ofKey(c.key()));
        }
    }

    @Test
    void theFastestCandidateWinsAndOneNotTimedNever() {
        Map<KernelChoice, Map<String, Double>> times = new EnumMap<>(KernelChoice.class);
        times.put(KernelChoice.CONV_LARGE, Map.of("direct", 3.0, "winograd", 1.5, "im2col", 2.0));
        // the direct kernel declined (no 16-lane vectors): not timed, so not chosen however fast the others look
        times.put(KernelChoice.CONV_SMALL, Map.of("winograd", 4.0, "im2col", 2.5));
        times.put(KernelChoice.DGEMM_LARGE, Map.of("native", 0.8, "java", 1.6));
        times.put(KernelChoice.SGEMM_SMALL, Map.of("native", Double.NaN, "java", 0.1));
        Map<KernelChoice, String> won = KernelTuner.winners(times);
        assertEquals("winograd", won.get(KernelChoice.CONV_LARGE));
        assertEquals("im2col", won.get(KernelChoice.CONV_SMALL));
        assertEquals("native", won.get(KernelChoice.DGEMM_LARGE));
        assertEquals("java", won.get(KernelChoice.SGEMM_SMALL));
        // nothing timed: the rule's answer
        assertEquals(KernelTuner.rule(KernelChoice.CONV_WEIGHT_GRAD_SMALL), won.get(KernelChoice.CONV_WEIGHT_GRAD_SMALL));
        for (KernelChoice c : KernelChoice.values()) {
            assertTrue(c.candidates.contains(won.get(c)), c.key());
        }
    }

    /** A candidate within a few percent of the rule's own is a tie (noise): the rule's stays. */
    @Test
    void timedRoundsRunTheCandidatesInTurnsAndKeepEachOnesLeastTime() {
        java.util.List<String> order = new java.util.ArrayList<>();
        long[] slowNanos = {3_000_000L, 200_000L, 200_000L, 200_000L, 200_000L, 200_000L, 200_000L, 200_000L};
        int[] calls = {0};
        Map<String, Runnable> runs = new java.util.LinkedHashMap<>();
        runs.put("a", () -> {
            order.add("a");
            spin(slowNanos[Math.min(calls[0]++, slowNanos.length - 1)]);
        });
        runs.put("b", () -> {
            order.add("b");
            spin(1_000_000L);
        });
        Map<String, Double> best = KernelTimings.best(runs, 10_000_000L);
        assertTrue(order.size() >= 6 && order.size() % 2 == 0, "at least three rounds of both: " + order.size());
        for (int i = 0; i < order.size(); i++) {
            assertEquals(i % 2 == 0 ? "a" : "b", order.get(i), "in turns");
        }
        // a's first round (3 ms) is not its time; its later rounds (0.2 ms) are: the least counts.
        assertTrue(best.get("a") < best.get("b"), "a's least time beats b's: " + best);
        assertTrue(best.get("a") >= 0.2 && best.get("b") >= 1.0, "a time is never under the work's: " + best);
    }

    @Test
    void aChoiceWhoseCandidatesStillGetFasterIsNotSettled() {
        // A Java kernel the JIT has not compiled yet runs far slower, then drops: still falling, unsettled.
        assertTrue(KernelTimings.steady(Map.of("native", 2.7, "java", 3.7), Map.of("native", 2.6, "java", 3.6)));
        assertTrue(!KernelTimings.steady(Map.of("native", 2.7, "java", 9.0), Map.of("native", 2.7, "java", 3.6)));
        assertTrue(!KernelTimings.steady(Map.of("native", 2.7), Map.of("native", 2.7, "java", 3.6)), "a candidate timed once");
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    @Test
    void aTieKeepsTheRulesKernel() {
        KernelChoice c = KernelChoice.DGEMM_SMALL;
        String rule = KernelTuner.rule(c);
        String other = rule.equals("java") ? "native" : "java";
        assertEquals(rule, KernelTuner.winners(Map.of(c, Map.of(rule, 1.0, other, 0.98))).get(c));
        assertEquals(other, KernelTuner.winners(Map.of(c, Map.of(rule, 1.0, other, 0.9))).get(c));
    }

    @Test
    void measuredPicksAreTakenAndSaySo() {
        fakeTimes("im2col");
        assertEquals("im2col", KernelTuner.pick(KernelChoice.CONV_INPUT_GRAD_LARGE));
        List<String> lines = KernelTuner.describe();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("conv-large") && l.contains("im2col") && l.contains("(measured")),
                String.join("\n", lines));
        fakeTimes("java");
        assertEquals("java", KernelTuner.pick(KernelChoice.DGEMM_SMALL));
    }

    @Test
    void theUsersSettingBeatsAnyMeasurement() {
        NativeGemm.loaded();
        System.setProperty("gradscope.blas", "java");
        KernelTuner.resetToRules();
        KernelTuner.adopt(Map.of(KernelChoice.SGEMM_LARGE, "native", KernelChoice.CONV_LARGE, "im2col"), "measured");
        assertEquals("java", KernelTuner.pick(KernelChoice.SGEMM_LARGE));
        assertEquals("im2col", KernelTuner.pick(KernelChoice.CONV_LARGE), "GRADSCOPE_BLAS says nothing of convolutions");
        assertTrue(KernelTuner.choices().get("sgemm-large").contains("gradscope.blas=java"), KernelTuner.choices().toString());
    }

    @Test
    void theCacheKeepsTheWinnersForTheSameMachineOnly(@TempDir Path dir) throws IOException {
        Machine here = new Machine("Some CPU", "avx2", 2, "Haswell", "1", "/lib/libblas.so.3 (10 bytes)", "17.0.15");
        Map<KernelChoice, String> picks = new EnumMap<>(KernelChoice.class);
        for (KernelChoice c : KernelChoice.values()) {
            picks.put(c, c.candidates.get(c.ordinal() % c.candidates.size()));
        }
        TuneCache cache = new TuneCache(dir, here);
        assertNull(cache.load(), "nothing measured yet");
        assertTrue(cache.save(picks, Map.of(KernelChoice.CONV_SMALL, Map.of("direct", 1.25))));
        assertEquals(picks, new TuneCache(dir, here).load());
        // another core type, another core count: another file, not read
        Machine skylake = new Machine("Some CPU", "avx2", 2, "SkylakeX", "1", "/lib/libblas.so.3 (10 bytes)", "17.0.15");
        Machine fourCores = new Machine("Some CPU", "avx2", 4, "Haswell", "1", "/lib/libblas.so.3 (10 bytes)", "17.0.15");
        assertNull(new TuneCache(dir, skylake).load());
        assertNull(new TuneCache(dir, fourCores).load());
        // a file that names a kernel no choice has, or is not a properties file, is measured again: never an error
        String text = Files.readString(cache.file());
        Files.writeString(cache.file(), text.replace("conv-small=" + picks.get(KernelChoice.CONV_SMALL), "conv-small=fft"));
        assertNull(cache.load());
        Files.write(cache.file(), new byte[] {0, (byte) 0xff, '\\', 'u', 'z'});
        assertNull(cache.load());
        // a folder that cannot be written: no cache, no error
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        assertTrue(!new TuneCache(file.resolve("sub"), here).save(picks, Map.of()));
    }

    /** Each GEMM a choice can name gives the float64 product summed in order, within roundings, for any layout. */
    @Test
    void everyGemmTheChoiceCanNameComputesTheProduct() {
        Random r = new Random(5);
        int[][] shapes = {{1, 1, 1}, {7, 3, 5}, {33, 65, 17}, {128, 10, 512}, {130, 70, 260}};
        for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            for (int[] s : shapes) {
                for (int layout = 0; layout < 4; layout++) {
                    Tensor a = operand(r, dt, s[0], s[2], layout % 2 == 1);
                    Tensor b = operand(r, dt, s[2], s[1], layout >= 2);
                    double[] expected = reference(a, b);
                    for (String k : List.of("native", "java")) {
                        if (k.equals("native") && !NativeGemm.loaded() || k.equals("java") && !CpuMatmul.VECTOR) {
                            continue;
                        }
                        Tensor out = Tensor.empty(dt, Device.CPU, s[0], s[1]);
                        CpuMatmul.run(a, b, out, k);
                        double[] got = out.toDoubleArray();
                        double tol = (dt == DType.FLOAT32 ? 4 * Math.ulp(1f) : 4 * Math.ulp(1.0)) * s[2];
                        for (int i = 0; i < got.length; i++) {
                            assertEquals(expected[i], got[i], tol * (1 + Math.abs(expected[i])), k + " " + dt + " " + s[0] + "x"
                                    + s[2] + "x" + s[1] + " layout " + layout + " at " + i);
                        }
                    }
                }
            }
        }
    }

    /** The system BLAS's float64 product (the tuner's new candidate) is the Vector API's within roundings, batched too. */
    @Test
    void aBatchOfFloat64ProductsOnTheSystemBlas() {
        assumeTrue(NativeGemm.loaded(), "no system BLAS here");
        Random r = new Random(6);
        Tensor a = operand(r, DType.FLOAT64, 3 * 40, 64, false).viewReshape(new int[] {3, 40, 64});
        Tensor b = operand(r, DType.FLOAT64, 64, 50, false);
        Tensor bb = b.asStrided(new int[] {3, 64, 50}, new int[] {0, 50, 1}, 0);
        Tensor viaBlas = Tensor.empty(DType.FLOAT64, Device.CPU, 3, 40, 50);
        Tensor viaJava = Tensor.empty(DType.FLOAT64, Device.CPU, 3, 40, 50);
        CpuMatmul.run(a, bb, viaBlas, "native");
        CpuMatmul.run(a, bb, viaJava, "java");
        assertArrayEquals(viaJava.toDoubleArray(), viaBlas.toDoubleArray(), 1e-12);
    }

    private static Tensor operand(Random r, DType dt, int rows, int cols, boolean transposed) {
        double[] v = new double[rows * cols];
        for (int i = 0; i < v.length; i++) {
            v[i] = r.nextGaussian();
        }
        Tensor t = transposed ? Tensor.of(v, cols, rows) : Tensor.of(v, rows, cols);
        t = dt == DType.FLOAT32 ? t.to(DType.FLOAT32) : t;
        return transposed ? t.asStrided(new int[] {rows, cols}, new int[] {1, rows}, 0) : t;
    }

    private static double[] reference(Tensor a, Tensor b) {
        int m = a.shape()[0];
        int k = a.shape()[1];
        int n = b.shape()[1];
        double[] av = a.contiguous().toDoubleArray();
        double[] bv = b.contiguous().toDoubleArray();
        double[] c = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    s += av[i * k + p] * bv[p * n + j];
                }
                c[i * n + j] = s;
            }
        }
        return c;
    }
}
