package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class GradscopeCommandTest {

    private record Result(int status, String out, String err) {
    }

    private static Result run(String... args) {
        PrintStream out0 = System.out;
        PrintStream err0 = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int status = GradscopeCommand.execute(args);
            return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out0);
            System.setErr(err0);
        }
    }

    @Test
    void helpListsTheCommandsAndExitsZero() {
        Result r = run("--help");
        assertEquals(0, r.status());
        assertTrue(r.out().contains("Usage: gradscope") && r.out().contains("bench"), r.out());
    }

    @Test
    void anUnknownOptionIsOneLineAndStatusTwo() {
        Result r = run("--frobnicate");
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("error: Unknown option: '--frobnicate'"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertFalse(r.err().contains("at io.gradscope"), "no stack trace");
    }

    @Test
    void benchReportsGflopsForBothPrecisions() {
        Result r = run("bench", "--size", "64", "--runs", "3");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().matches("(?s)sgemm gemm n=64: median [0-9.]+ GFLOP/s.*dgemm gemm n=64: median [0-9.]+ GFLOP/s.*"), r.out());
    }
}
