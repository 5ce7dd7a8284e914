package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's class-data archive for the window, with a stand-in for java that records its
 * arguments: the first window start writes the archive in the background and runs without it, the
 * next ones run with it, a jar newer than the archive has it written again, and the command-line
 * tools never use it.
 */
class LauncherArchiveTest {
    @TempDir
    Path root;

    private Path calls;
    private Path archive;
    private Path libJar;

    private void setUp() throws IOException {
        Files.copy(Path.of("../gradscope"), root.resolve("gradscope"));
        Path lib = Files.createDirectories(root.resolve("app/target/lib"));
        Path jar = Files.writeString(lib.getParent().resolve("gradscope-app-0.1.0-SNAPSHOT.jar"), "");
        libJar = Files.writeString(lib.resolve("some-library.jar"), "");
        Path list = Files.createDirectories(root.resolve("assets/cds")).resolve("window.classlist.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(list))) {
            out.write("java/lang/Object\n".getBytes(StandardCharsets.UTF_8));
        }
        // Built a while ago: nothing newer than the jar (no build), the list older still.
        Instant built = Instant.now().minusSeconds(100);
        Files.setLastModifiedTime(list, FileTime.from(built.minusSeconds(100)));
        for (Path p : new Path[] {jar, libJar, lib}) {
            Files.setLastModifiedTime(p, FileTime.from(built));
        }
        calls = root.resolve("calls");
        archive = root.resolve("app/target/window.jsa");
        Path bin = Files.createDirectories(root.resolve("bin"));
        // Records each call on a line; a dump writes the archive it is asked for.
        Path java = Files.writeString(bin.resolve("java"), """
                #!/usr/bin/env bash
                echo "$*" >> "%s"
                for a in "$@"; do
                  case "$a" in -XX:SharedArchiveFile=*) [[ " $* " == *" -Xshare:dump "* ]] && echo archive > "${a#*=}" ;; esac
                done
                # A build while the dump runs: the library replaced.
                if [[ " $* " == *" -Xshare:dump "* ]] && [ -f "%s" ]; then touch "%s"; fi
                exit 0
                """.formatted(calls, root.resolve("build-during-dump"), libJar));
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private List<String> launch(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("bash", root.resolve("gradscope").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("PATH", root.resolve("bin") + ":" + System.getenv("PATH"));
        pb.environment().remove("JAVA_OPTS");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
    }

    /** The launcher's own call of java (the one that runs Gradscope), the last to name the main class. */
    private static String appCall(List<String> calls) {
        return calls.stream().filter(c -> c.contains("io.gradscope.app.Launcher")).reduce((a, b) -> b).orElseThrow();
    }

    private static long dumps(List<String> calls) {
        return calls.stream().filter(c -> c.contains("-Xshare:dump")).count();
    }

    /** Waits for the background dump to have written the archive (and its log to be complete). */
    private void awaitArchive() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.exists(archive) && System.nanoTime() < until) {
            Thread.sleep(50);
        }
        assertTrue(Files.exists(archive), "the archive was written");
    }

    @Test
    void helpAndVersionWriteNoArchive() throws Exception {
        setUp();
        launch("--help");
        launch("--version");
        Thread.sleep(500);
        List<String> all = Files.readAllLines(calls);
        assertEquals(2, all.size(), "the two calls of Gradscope, no dump: " + String.join("\n", all));
        assertEquals(0, dumps(all));
        assertFalse(Files.exists(archive));
    }

    @Test
    void theWindowStartsFromTheArchiveOnceItIsWrittenAndWhileItIsNewerThanTheJars() throws Exception {
        setUp();
        List<String> first = launch("open", "x.grad");
        assertFalse(appCall(first).contains("SharedArchiveFile"), "no archive yet: " + appCall(first));
        awaitArchive();
        List<String> all = Files.readAllLines(calls);
        assertEquals(1, dumps(all), String.join("\n", all));
        String dump = all.stream().filter(c -> c.contains("-Xshare:dump")).findFirst().orElseThrow();
        assertTrue(dump.contains("-XX:SharedClassListFile=" + root.resolve("app/target/window.classlist")), dump);
        assertEquals("java/lang/Object", Files.readString(root.resolve("app/target/window.classlist")).strip(),
                "the list given to the dump is the committed one, unzipped");

        List<String> second = launch("open", "x.grad");
        assertTrue(appCall(second).contains("-XX:SharedArchiveFile=" + archive), appCall(second));
        assertEquals(1, dumps(second), "written once");
        List<String> tool = launch("run", "x.grad");
        assertFalse(appCall(tool).contains("SharedArchiveFile"), "the command-line tools start without it");

        // A library newer than the archive (a new build): Java would ignore the archive, so it is written again.
        Files.setLastModifiedTime(libJar, FileTime.from(Instant.now()));
        Files.setLastModifiedTime(root.resolve("app/target/window-cds.log"), FileTime.from(Instant.now().minusSeconds(50)));
        Files.delete(archive);
        List<String> third = launch();
        assertFalse(appCall(third).contains("SharedArchiveFile"), appCall(third));
        awaitArchive();
        assertEquals(2, dumps(Files.readAllLines(calls)), "written again after the build");
    }

    /**
     * The bench module's jar, once built, ends the class path of every start (the app finds bench and
     * bench-ui there) and of the archive's dump, so the archive stays valid; a newer bench jar has it written again.
     */
    @Test
    void theBenchJarWhenBuiltEndsTheClassPathOfEachStartAndOfTheArchive() throws Exception {
        setUp();
        Path bench = Files.createDirectories(root.resolve("bench/target")).resolve("gradscope-bench-0.1.0-SNAPSHOT.jar");
        Files.writeString(bench, "");
        Files.setLastModifiedTime(bench, FileTime.from(Instant.now().minusSeconds(100)));
        String cp = "-cp " + root.resolve("app/target/gradscope-app-0.1.0-SNAPSHOT.jar") + ":" + root.resolve("app/target/lib") + "/*:"
                + bench;
        List<String> first = launch("open", "x.grad");
        assertTrue(appCall(first).contains(cp + " io.gradscope.app.Launcher open x.grad"), appCall(first));
        awaitArchive();
        String dump = Files.readAllLines(calls).stream().filter(c -> c.contains("-Xshare:dump")).findFirst().orElseThrow();
        assertTrue(dump.endsWith(cp), dump);
        assertTrue(appCall(launch("open", "x.grad")).contains("-XX:SharedArchiveFile=" + archive), "the archive is used");
        assertTrue(appCall(launch("run", "x.grad")).contains(cp + " io.gradscope.app.Launcher run x.grad"));

        Files.setLastModifiedTime(bench, FileTime.from(Instant.now()));
        Files.delete(archive);
        List<String> rebuilt = launch("open", "x.grad");
        assertFalse(appCall(rebuilt).contains("SharedArchiveFile"), appCall(rebuilt));
        awaitArchive();
        assertEquals(2, dumps(Files.readAllLines(calls)), "written again after the bench's build");
    }

    @Test
    void anArchiveWrittenWhileABuildReplacedTheJarsIsDropped() throws Exception {
        setUp();
        Files.writeString(root.resolve("build-during-dump"), "");
        launch("open", "x.grad");
        // The dump has run once it is among the calls and its marker of the start is gone.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < until && (dumps(Files.readAllLines(calls)) == 0 || hasStartMarker())) {
            Thread.sleep(50);
        }
        Thread.sleep(200);
        assertEquals(1, dumps(Files.readAllLines(calls)));
        assertFalse(Files.exists(archive), "Java would refuse an archive of jars that changed under it");

        Files.delete(root.resolve("build-during-dump"));
        List<String> next = launch("open", "x.grad");
        assertFalse(appCall(next).contains("SharedArchiveFile"), appCall(next));
        awaitArchive();
        assertEquals(2, dumps(Files.readAllLines(calls)), "the next start writes it again");
    }

    private boolean hasStartMarker() throws IOException {
        try (var files = Files.list(root.resolve("app/target"))) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(".start"));
        }
    }
}
