package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the command line in-process (or in a JVM of its own) and captures what it prints; the bench module's tests use it too. */
public final class Cli {
    private Cli() {
    }

    /** The exit status and what was printed. */
    public record Result(int status, String out, String err) {
    }

    /** Runs {@code gradscope ARGS} in this JVM. */
    public static synchronized Result run(String... args) {
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

    /**
     * Runs {@code gradscope ARGS} in a JVM of its own on this one's class path (JavaFX starts once per
     * process, and this one may already run it), with {@code jvm} options, {@code DISPLAY} set to
     * {@code display} (removed when null) and its output discarded; the status and what it printed on stderr.
     */
    public static Result launch(List<String> jvm, String display, String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.gradscope.app.Launcher"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        if (display == null) {
            pb.environment().remove("DISPLAY");
        } else {
            pb.environment().put("DISPLAY", display);
        }
        pb.environment().remove("WAYLAND_DISPLAY");
        Process proc = pb.start();
        try {
            byte[] err = proc.getErrorStream().readAllBytes();
            assertTrue(proc.waitFor(60, TimeUnit.SECONDS), "did not finish: " + cmd);
            return new Result(proc.exitValue(), "", new String(err, StandardCharsets.UTF_8));
        } finally {
            proc.destroyForcibly();
        }
    }

    /** A refusal: exactly the one line {@code expected} on stderr, status 2, nothing on stdout. */
    public static void assertOneLineError(Result r, String expected) {
        assertEquals(expected, r.err().strip());
        assertEquals(2, r.status(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertEquals("", r.out());
    }
}
