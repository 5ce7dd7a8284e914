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

    @Test
    void benchNeedsAtLeastFiveRuns() {
        Cli.Result r = run("bench", "--runs", "3");
        assertEquals(2, r.status());
        assertEquals("error: --runs must be at least 5, not 3", r.err().strip());
    }
}
