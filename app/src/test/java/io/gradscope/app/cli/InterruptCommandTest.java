package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl+C (a SIGINT to the JVM, as a terminal sends it) during a long {@code gradscope jacobian}: it
 * stops within seconds with one line and status 130, and {@code --out} is left unwritten (no folder,
 * no half-written one beside it).
 */
class InterruptCommandTest {
    @TempDir
    Path tmp;

    @Test
    void ctrlCStopsALongJacobianWithOneLineStatus130AndNoOutput() throws Exception {
        Path p = tmp.resolve("convnet.grad");
        // --dense: 9,600 VJPs, one a row, each a sweep over three convolutions: far longer than the wait below.
        // (A compressed evaluation of a larger one was refused at its coloring, as too dense, when the machine was quick.)
        Files.writeString(p, "x = input(1, 6, 40, 40, grad=True)\nw1 = param(6, 6, 3, 3)\nw2 = param(6, 6, 3, 3)\n"
                + "w3 = param(6, 6, 3, 3)\na = relu(conv2d(x, w1, padding=1))\nc = relu(conv2d(a, w2, padding=1))\n"
                + "b = relu(conv2d(c, w3, padding=1))\nloss = sum(b)\n");
        Path out = tmp.resolve("out");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "--add-modules", "jdk.incubator.vector", "-cp", System.getProperty("java.class.path"),
                "io.gradscope.app.Launcher", "jacobian", p.toString(), "--of", "b", "--wrt", "x", "--dense", "--max-time", "1e9", "--out", out.toString())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("GRADSCOPE_TUNE", "rule");
        Process proc = pb.start();
        List<String> err = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(proc.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                    err.add(l);
                }
            } catch (java.io.IOException e) {
                err.add("read failed: " + e);
            }
        });
        reader.start();
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (err.stream().noneMatch(l -> l.startsWith("estimate:")) && proc.isAlive() && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            Thread.sleep(1500); // into the products
            assertTrue(proc.isAlive(), "still working when Ctrl+C comes: " + err);
            long t0 = System.nanoTime();
            Process kill = new ProcessBuilder("kill", "-INT", Long.toString(proc.pid())).start();
            assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -INT failed");
            assertTrue(proc.waitFor(10, TimeUnit.SECONDS), "still running 10 s after Ctrl+C");
            double seconds = (System.nanoTime() - t0) / 1e9;
            reader.join(5000);
            assertEquals(Interrupt.STATUS, proc.exitValue(), String.join("\n", err));
            assertTrue(seconds < 5, "stopped " + seconds + " s after Ctrl+C");
            List<String> after = err.stream().filter(l -> !l.startsWith("estimate:") && !l.startsWith("evaluating:")
                    && !l.startsWith("WARNING: Using incubator modules")).toList();
            assertEquals(List.of("interrupted: jacobian stopped on Ctrl+C; nothing was written"), after, String.join("\n", err));
            assertFalse(Files.exists(out), "no --out folder");
            try (Stream<Path> left = Files.list(tmp)) {
                assertEquals(List.of("convnet.grad"), left.map(f -> f.getFileName().toString()).toList(), "nothing half-written beside it");
            }
        } finally {
            proc.destroyForcibly();
        }
    }
}
