package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher script ./gradscope with a stand-in for java (its built jar present, so it builds
 * nothing): the JVM's incubator notice is filtered from stderr, the exit status is Java's, and
 * stopping the launcher stops Java (no JVM left running behind a killed launcher).
 */
class LauncherScriptTest {
    @TempDir
    Path root;

    private ProcessBuilder launcher(String arg) throws IOException {
        Files.copy(Path.of("../gradscope"), root.resolve("gradscope"));
        Path lib = Files.createDirectories(root.resolve("app/target/lib"));
        Files.writeString(lib.getParent().resolve("gradscope-app-0.1.0-SNAPSHOT.jar"), "");
        Path bin = Files.createDirectories(root.resolve("bin"));
        Path java = Files.writeString(bin.resolve("java"), """
                #!/usr/bin/env bash
                echo "WARNING: Using incubator modules: jdk.incubator.vector" >&2
                echo "a warning of its own" >&2
                echo "out"
                for a in "$@"; do last="$a"; done
                if [ "$last" = wait ]; then exec sleep 300; fi
                if [ "$last" = nul ]; then printf 'error: a\\0b\\n' >&2; fi
                exit 3
                """);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("gradscope").toString(), "run", arg);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().remove("JAVA_OPTS");
        return pb;
    }

    /**
     * The launcher's stderr, read from a file: the filter (a process of its own) may still be writing
     * when Java exits, and Java's Process closes a pipe's stream once its process has exited, dropping
     * what comes later (a terminal or a shell pipe reads on until the filter ends). So the file is read
     * until it holds {@code expected}, for up to 10 s.
     */
    private static String stderrOnceWritten(Path file, String expected) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String err = Files.readString(file, StandardCharsets.UTF_8);
        while (!err.equals(expected) && System.nanoTime() < until) {
            Thread.sleep(20);
            err = Files.readString(file, StandardCharsets.UTF_8);
        }
        return err;
    }

    @Test
    void theNoticeIsFilteredAndTheStatusIsJavas() throws Exception {
        Path errFile = root.resolve("stderr.txt");
        Process p = launcher("x.grad").redirectError(errFile.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String err = stderrOnceWritten(errFile, "a warning of its own\n");
        assertEquals(3, p.exitValue(), err);
        assertEquals("out\n", out);
        assertEquals("a warning of its own\n", err);
    }

    @Test
    void aLineWithANulByteReachesTheUser() throws Exception {
        // Issue 49, 6: grep without -a took stderr for binary and printed "binary file matches" instead.
        Path errFile = root.resolve("stderr.txt");
        Process p = launcher("nul").redirectError(errFile.toFile()).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals("a warning of its own\nerror: a\0b\n", stderrOnceWritten(errFile, "a warning of its own\nerror: a\0b\n"));
    }

    @Test
    void stoppingTheLauncherStopsJava() throws Exception {
        Process p = launcher("wait").start();
        List<ProcessHandle> started = List.of();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("out", out.readLine(), "java started");
            started = p.descendants().toList();
            p.destroy(); // SIGTERM, as kill or a timeout sends
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (started.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            assertFalse(p.isAlive());
            for (ProcessHandle h : started) {
                assertFalse(h.isAlive(), "left running: " + h.info().commandLine().orElse("pid " + h.pid()));
            }
        } finally {
            started.forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
