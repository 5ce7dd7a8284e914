package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GradscopeCommandTest {

    private static Cli.Result run(String... args) {
        return Cli.run(args);
    }

    @Test
    void helpListsTheCommandsAndExitsZero() {
        Cli.Result r = run("--help");
        assertEquals(0, r.status());
        assertTrue(r.out().contains("Usage: gradscope") && r.out().contains("bench"), r.out());
    }

    @Test
    void anUnknownOptionIsOneLineAndStatusTwo() {
        Cli.Result r = run("--frobnicate");
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("error: Unknown option: '--frobnicate'"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertFalse(r.err().contains("at io.gradscope"), "no stack trace");
    }

    @Test
    void benchPrintsOneJsonObjectOfMedians() throws Exception {
        Cli.Result r = run("bench", "--json", "--runs", "5", "--only", "sgemm_256", "--only", "dgemm_256", "--only", "op_overhead");
        assertEquals(0, r.status(), r.err());
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        for (String key : new String[] {"sgemm_256_gflops", "dgemm_256_gflops", "op_overhead_us"}) {
            assertTrue(json.has(key) && json.get(key).isNumber() && json.get(key).asDouble() > 0, key + " in " + r.out());
        }
        assertEquals(3, json.size(), r.out());
    }

    /** Shape only (bench figures are never timed tests): ratios where PyTorch is there, else one line saying why not. */
    @Test
    void benchComparesWithPyTorchOrSaysWhyNot() throws Exception {
        Cli.Result r = run("bench", "--json", "--compare-pytorch", "--runs", "5", "--only", "sgemm_256", "--only", "plain_loops");
        assertEquals(0, r.status(), r.err());
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertTrue(json.get("sgemm_256_gflops").asDouble() > 0, r.out());
        if (r.err().contains("PyTorch comparison skipped: ")) {
            assertFalse(json.has("pytorch"), r.out());
            return;
        }
        assertTrue(r.err().contains("Comparing with PyTorch"), r.err());
        assertTrue(json.get("pytorch").get("sgemm_256_gflops").asDouble() > 0, r.out());
        double ratio = json.get("gradscope_over_pytorch").get("sgemm_256_gflops").asDouble();
        assertTrue(ratio > 0 && Double.isFinite(ratio), r.out());
        assertFalse(json.get("pytorch").has("sgemm_1024_plain_loops_gflops"), "the plain loops have no PyTorch twin: " + r.out());
    }

    /** The warm-up runs at least the count asked for, then stops once the JIT is quiet (here at once: nothing compiles). */
    @Test
    void warmUpRunsAtLeastTheCountAndThenStops() {
        int[] calls = {0};
        long t0 = System.nanoTime();
        BenchCommand.warmUp(() -> ++calls[0], 7);
        assertTrue(calls[0] >= 7, "ran " + calls[0]);
        assertTrue(System.nanoTime() - t0 < 6_000_000_000L, "stopped within the 5 s limit");
    }

    @Test
    void benchNeedsAtLeastFiveRuns() {
        Cli.Result r = run("bench", "--runs", "3");
        assertEquals(2, r.status());
        assertEquals("error: --runs must be at least 5, not 3", r.err().strip());
    }
}
