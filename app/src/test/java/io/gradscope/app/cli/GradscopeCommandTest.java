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
    void benchReportsGflopsForBothPrecisions() {
        Cli.Result r = run("bench", "--size", "64", "--runs", "3");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().matches("(?s)sgemm gemm n=64: median [0-9.]+ GFLOP/s.*dgemm gemm n=64: median [0-9.]+ GFLOP/s.*"), r.out());
    }
}
