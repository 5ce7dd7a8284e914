package io.gradscope.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.Cli;
import java.util.List;
import org.junit.jupiter.api.Test;

/** gradscope bench: its place on the command line, its output's shape, its measuring, its refusals. */
class BenchCommandTest {

    private static Cli.Result run(String... args) {
        return Cli.run(args);
    }

    /** The bench module adds bench and bench-ui after gradscope's own commands (MoreCommands), in the help's list as before. */
    @Test
    void helpListsBenchAndBenchUiAfterTheAppsCommands() {
        Cli.Result r = run("--help");
        assertEquals(0, r.status());
        List<String> commands = r.out().lines().dropWhile(l -> !l.startsWith("Commands:")).skip(1)
                .takeWhile(l -> !l.isBlank()).filter(l -> l.startsWith("  ") && !l.startsWith("   ")).map(l -> l.strip().split(" +")[0])
                .toList();
        assertEquals(List.of("memory", "bench", "bench-ui"), commands.subList(commands.size() - 3, commands.size()), r.out());
    }

    /**
     * Shape only (bench figures are never timed tests), on two quick workloads in one run: one JSON
     * object with a median for each workload asked for and nothing else; where PyTorch is there, its
     * figures, thread counts and the ratios, which are the two medians divided; a workload without a
     * PyTorch twin is measured alone; else one line saying why not.
     */
    @Test
    void benchPrintsOneJsonObjectOfMediansAndComparesWithPyTorchOrSaysWhyNot() throws Exception {
        String gemm = "sgemm_256_gflops";
        String alone = "jacobian_banded_10k_compressed_ms";
        Cli.Result r = run("bench", "--json", "--compare-pytorch", "--runs", "5", "--only", "sgemm_256", "--only", "jacobian_banded_10k_compressed");
        assertEquals(0, r.status(), r.err());
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        // Figures in their units: GFLOP/s of a 256 product (not FLOP/s), a time under a minute.
        double g = json.get(gemm).asDouble();
        assertTrue(g > 0.01 && g < 10_000, gemm + " in " + r.out());
        double ms = json.get(alone).asDouble();
        assertTrue(ms > 0 && ms < 60_000, alone + " in " + r.out());
        List<String> keys = new java.util.ArrayList<>();
        json.fieldNames().forEachRemaining(keys::add);
        // The machine the figures were taken on, and each kernel choice with its source (the tests run
        // with GRADSCOPE_TUNE=rule: the rule's, unless GRADSCOPE_BLAS names a GEMM).
        var machine = json.get("machine");
        assertTrue(machine.get("cores").asInt() >= 1 && !machine.get("cpu").asText().isBlank() && machine.has("flags")
                && machine.has("openblas-coretype"), r.out());
        var kernels = json.get("kernels");
        List<String> choices = new java.util.ArrayList<>();
        kernels.fieldNames().forEachRemaining(choices::add);
        assertTrue(choices.containsAll(List.of("sgemm-small", "dgemm-large", "conv-large", "conv-weight-grad-small")), r.out());
        kernels.fields().forEachRemaining(e -> assertTrue(e.getValue().asText().matches("(native|java|direct|winograd|im2col) \\(.+\\)"),
                e.getKey() + ": " + e.getValue()));
        assertTrue(r.err().contains("kernel choices (cache: "), r.err());
        if (r.err().contains("PyTorch comparison skipped: ")) {
            assertEquals(List.of(gemm, alone, "machine", "kernels"), keys, r.out());
            return;
        }
        assertTrue(r.err().contains("Comparing with PyTorch"), r.err());
        assertEquals(List.of(gemm, alone, "machine", "kernels", "pytorch", "pytorch_threads", "gradscope_over_pytorch"), keys,
                r.out());
        double torch = json.get("pytorch").get(gemm).asDouble();
        assertTrue(torch > 0.01 && torch < 10_000, r.out());
        assertTrue(json.get("pytorch_threads").get(gemm).asInt() >= 1, r.out());
        double ratio = json.get("gradscope_over_pytorch").get(gemm).asDouble();
        // Each figure is rounded to 0.001 before it is printed.
        assertEquals(g / torch, ratio, 0.0015 + 0.0015 * g / torch / Math.min(g, torch), r.out());
        for (String part : new String[] {"pytorch", "pytorch_threads", "gradscope_over_pytorch"}) {
            assertFalse(json.get(part).has(alone), "no PyTorch twin, no figure: " + r.out());
        }
    }

    /** Medians after warm-up: the runs asked for, taken after at least the warm-up count, sorted; then it stops once the JIT is quiet (here at once). */
    @Test
    void measureTimesTheRunsAfterTheWarmUp() {
        int[] calls = {0};
        long t0 = System.nanoTime();
        double[] v = BenchCommand.measure(() -> -++calls[0], 7, 5);
        assertTrue(calls[0] >= 7 + 5, "ran " + calls[0]);
        assertTrue(System.nanoTime() - t0 < 6_000_000_000L, "stopped within the 5 s limit");
        int n = calls[0];
        assertArrayEquals(new double[] {-n, -n + 1, -n + 2, -n + 3, -n + 4}, v, "the last five runs' figures, sorted");
    }

    @Test
    void benchNeedsAtLeastFiveRuns() {
        Cli.Result r = run("bench", "--runs", "3");
        assertEquals(2, r.status());
        assertEquals("error: --runs must be at least 5, not 3", r.err().strip());
    }

    @Test
    void benchOnlyAnUnknownWorkloadNamesItAndListsTheKnownOnes() {
        Cli.Result r = run("bench", "--only", "nosuchworkload");
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("error: --only nosuchworkload: no cpu workload's key contains 'nosuchworkload'; the workloads "
                + "are sgemm_256_gflops, "), r.err());
        assertTrue(r.err().contains("graph_10k_build_backward_ms"), r.err());
        assertEquals(1, r.err().strip().lines().count());
        assertEquals("", r.out());
    }
}
