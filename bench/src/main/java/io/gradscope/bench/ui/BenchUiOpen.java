package io.gradscope.bench.ui;

import io.gradscope.app.launch.AppLauncher;
import io.gradscope.app.launch.GradscopeApp;
import io.gradscope.app.launch.StartTimes;
import io.gradscope.app.view.MainWindow;
import io.gradscope.app.viewmodel.RecentFiles;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.stage.Stage;

/**
 * {@code gradscope bench-ui --open FILE}: the path a user takes, timed. The window opens, then the
 * file is opened as File → Open does ({@link SessionViewModel#open}), {@code runs} times; each time
 * is measured from the command to the first frame that shows the graph, with its parts ({@link OpenTimer}).
 * Peak heap is the sum of the heap pools' peaks during the open. Prints one JSON object (ms; the first
 * open is the cold one).
 */
public final class BenchUiOpen extends Application {
    /** The parts of an open, in the order they happen; together they make the total. */

    static Path file;
    static int runs = 1;
    /** What the run printed (tests read it). */
    static volatile Map<String, Object> result;
    static volatile String failure;

    private MainWindow window;
    private final List<Map<String, Double>> done = new ArrayList<>();
    private final List<Double> peaks = new ArrayList<>();
    private long firstOpenAt;
    /** The whole process's CPU time (all threads: JIT, GC, the loader) when the first open's graph was drawn. */
    private double firstGraphCpuMs = -1;
    /** With -Dgradscope.bench.threads=true: each thread's CPU (ms, by name) when the first open's graph was drawn. */
    private Map<String, Double> threadsCpu;

    @Override
    public void start(Stage stage) {
        // As ./gradscope open FILE starts: the window built and shown, then the file opened at once.
        window = GradscopeApp.show(stage, new RecentFiles(() -> "", s -> { }));
        openNext();
    }

    private void openNext() {
        if (done.isEmpty()) {
            firstOpenAt = System.nanoTime();
        }
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            p.resetPeakUsage();
        }
        OpenTimer.time(window, file, parts -> {
            if (done.isEmpty()) {
                firstGraphCpuMs = processCpuMs();
                if (Boolean.getBoolean("gradscope.bench.threads")) {
                    threadsCpu = ThreadsCpu.read();
                }
            }
            done.add(parts);
            peaks.add(peakHeapMb());
            if (done.size() < runs) {
                Platform.runLater(this::openNext);
            } else {
                report();
            }
        }, this::finish);
    }

    private void report() {
        if (StartTimes.at("first_frame") < 0) {
            // The window's first frame comes before the file's; should a pulse still be between the two marks, wait for it.
            new javafx.animation.AnimationTimer() {
                @Override
                public void handle(long now) {
                    if (StartTimes.at("first_frame") >= 0) {
                        stop();
                        report();
                    }
                }
            }.start();
            return;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("file", file.toString());
        out.put("vertices", window.viewModel().sweep().recorded().get().graph().size());
        out.put("drawn", window.graphPanel().currentLayout().nodes().size());
        out.put("runs", runs);
        // The window's start (JVM start to its first frame) and the whole path: JVM start (or the shell's
        // command, when GRADSCOPE_BENCH_T0 gives its wall-clock ms) to the first frame of the file's graph.
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        Map<String, Double> startup = StartParts.wall(jvmStart);
        out.put("startup_ms", startup.get("total"));
        out.put("startup", startup);
        out.put("startup_cpu", StartParts.cpu());
        long firstGraph = firstOpenAt + (long) (done.get(0).get("total") * 1e6);
        out.put("end_to_end_ms", ms(firstGraph - StartTimes.nanoOf(jvmStart)));
        String shell = System.getenv("GRADSCOPE_BENCH_T0");
        if (shell != null && shell.matches("\\d{10,16}")) {
            out.put("from_shell_ms", ms(firstGraph - StartTimes.nanoOf(Long.parseLong(shell))));
        }
        if (firstGraphCpuMs >= 0) {
            // Less noisy than the wall clock on a busy machine: the CPU the whole open path cost.
            out.put("end_to_end_cpu_ms", firstGraphCpuMs);
        }
        if (threadsCpu != null) {
            out.put("threads_cpu_ms", threadsCpu);
        }
        out.put("first", done.get(0));
        Map<String, Double> median = new LinkedHashMap<>();
        for (String k : done.get(0).keySet()) {
            median.put(k, median(done.stream().mapToDouble(m -> m.get(k)).toArray()));
        }
        out.put("median", median);
        out.put("peak_heap_mb", peaks.stream().mapToDouble(Double::doubleValue).max().orElse(0));
        var memory = window.viewModel().sweep().recorded().get().run().memory();
        out.put("retain", memory == null ? "all" : memory.retention().describe());
        out.put("dtype", window.viewModel().dtype().get().toString());
        out.put("not_retained_mb", memory == null ? 0 : Math.round(memory.dropped() / 1e5) / 10.0);
        // The engine's own count: the most bytes of tensors live at once, those held for inspection included.
        long tensors = 0;
        for (var sample : window.viewModel().sweep().recorded().get().run().timeline().samples()) {
            tensors = Math.max(tensors, sample.program() + sample.of(io.gradscope.engine.tensor.MemoryCategory.HELD_FOR_INSPECTION));
        }
        out.put("tensor_peak_mb", Math.round(tensors / 1e5) / 10.0);
        result = out;
        try {
            System.out.println(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(out));
        } catch (Exception e) {
            System.out.println(out);
        }
        Platform.exit();
    }

    private static double processCpuMs() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? Math.round(sun.getProcessCpuTime() / 1e5) / 10.0 : -1;
    }

    private void finish(String why) {
        if (failure == null && result == null) {
            failure = why;
            Platform.exit();
        }
    }

    /** The heap pools' peaks since they were last reset, summed (MB). */
    static double peakHeapMb() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP && p.getPeakUsage() != null) {
                sum += p.getPeakUsage().getUsed();
            }
        }
        return Math.round(sum / 1e5) / 10.0;
    }

    private static double ms(long ns) {
        return Math.round(ns / 1e5) / 10.0;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    /** Opens {@code file} {@code runs} times in a window and prints the times; 2 when the file does not open. */
    public static int launch(Path file, int runs) {
        if (System.getenv("DISPLAY") == null) {
            throw new io.gradscope.engine.GradscopeException("bench-ui needs a display: run it as xvfb-run -a ./gradscope bench-ui");
        }
        BenchUiOpen.file = file;
        BenchUiOpen.runs = runs;
        StartTimes.measureCpu();
        // A display that cannot be opened is one line, as the app's (AppLauncher).
        AppLauncher.startFx(System.getenv(), () -> Application.launch(BenchUiOpen.class));
        if (failure != null) {
            System.err.println("error: " + file + " did not open: " + failure);
            return 2;
        }
        return 0;
    }
}
