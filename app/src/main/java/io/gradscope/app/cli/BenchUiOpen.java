package io.gradscope.app.cli;

import io.gradscope.app.AppLauncher;
import io.gradscope.app.view.GraphPanel;
import io.gradscope.app.view.MainWindow;
import io.gradscope.app.viewmodel.RecentFiles;
import io.gradscope.app.viewmodel.SessionViewModel;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javafx.animation.AnimationTimer;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;

/**
 * {@code gradscope bench-ui --open FILE}: the path a user takes, timed. The window opens, then the
 * file is opened as File → Open does ({@link SessionViewModel#open}), {@code runs} times; each time
 * is measured from the command to the first frame that shows the graph, with its parts: reading the
 * file into the editor, the wait for the worker, parse, plan, run (forward and backward), the trace's
 * graph, layout, the wait to get back on the UI thread, showing the run (view-models, inspector) and
 * the first draw (canvas commands and the frame that renders them). Peak heap is the sum of the heap
 * pools' peaks during the open. Prints one JSON object (ms; the first open is the cold one).
 */
public final class BenchUiOpen extends Application {
    /** The parts of an open, in the order they happen; together they make the total. */
    public static final List<String> PARTS = List.of("editor", "queue", "parse", "plan", "run", "trace", "layout",
            "handover", "show", "first_draw");

    static Path file;
    static int runs = 1;
    /** What the run printed (tests read it). */
    static volatile Map<String, Object> result;
    static volatile String failure;

    private MainWindow window;
    private final List<Map<String, Double>> done = new ArrayList<>();
    private final List<Double> peaks = new ArrayList<>();
    private double startupMs;

    @Override
    public void start(Stage stage) {
        window = new MainWindow(new RecentFiles(() -> "", s -> { }));
        Scene scene = new Scene(window, 1280, 820);
        window.install(scene);
        stage.setScene(scene);
        stage.show();
        startupMs = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
        SessionViewModel vm = window.viewModel();
        vm.error().addListener((o, a, e) -> {
            if (e != null) {
                finish(e.message());
            }
        });
        // The window's own first run (the default program) is not measured: open once it is shown.
        Platform.runLater(this::openNext);
    }

    private void openNext() {
        SessionViewModel vm = window.viewModel();
        if (vm.running().get()) {
            Platform.runLater(this::openNext);
            return;
        }
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            p.resetPeakUsage();
        }
        long t0 = System.nanoTime();
        SessionViewModel.Shown before = vm.lastShown().get();
        vm.open(file);
        if (!vm.running().get() && !io.gradscope.app.service.ModelImport.isModel(file)) {
            finish(vm.status().get());
            return;
        }
        whenRunning(vm, () -> awaitFrame(t0, System.nanoTime(), before));
    }

    /** Runs {@code then} once the run has started (at once for a program; after the import for a model). */
    private void whenRunning(SessionViewModel vm, Runnable then) {
        if (vm.running().get()) {
            then.run();
        } else if (vm.status().get().startsWith("Cannot open")) {
            finish(vm.status().get());
        } else {
            Platform.runLater(() -> whenRunning(vm, then));
        }
    }

    private void awaitFrame(long t0, long editorEnd, SessionViewModel.Shown before) {
        SessionViewModel vm = window.viewModel();
        GraphPanel panel = window.graphPanel();
        int framesBefore = panel.frames();
        new AnimationTimer() {
            private long drawnSeen;

            @Override
            public void handle(long now) {
                SessionViewModel.Shown s = vm.lastShown().get();
                if (failure != null) {
                    stop();
                    return;
                }
                if (s == null || s == before || panel.frames() == framesBefore) {
                    return;
                }
                // The pulse after the one whose start found the canvas drawn: that frame has been rendered.
                if (drawnSeen == 0) {
                    drawnSeen = now;
                    return;
                }
                stop();
                record(t0, editorEnd, s, System.nanoTime());
            }
        }.start();
    }

    private void record(long t0, long editorEnd, SessionViewModel.Shown s, long frame) {
        Map<String, Double> parts = new LinkedHashMap<>();
        parts.put("editor", ms(editorEnd - t0)); // reading the file into the editor (for a model: importing it first)
        parts.put("queue", ms(s.times().startedAt() - editorEnd));
        parts.put("parse", ms(s.times().parseNs()));
        parts.put("plan", ms(s.times().planNs()));
        parts.put("run", ms(s.times().runNs()));
        parts.put("trace", ms(s.times().traceNs()));
        parts.put("layout", ms(s.times().layoutNs()));
        parts.put("handover", ms(s.showStart() - s.times().finishedAt()));
        parts.put("show", ms(s.showEnd() - s.showStart()));
        parts.put("first_draw", ms(frame - s.showEnd()));
        parts.put("total", ms(frame - t0));
        done.add(parts);
        peaks.add(peakHeapMb());
        if (done.size() < runs) {
            Platform.runLater(this::openNext);
        } else {
            report();
        }
    }

    private void report() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("file", file.toString());
        out.put("vertices", window.viewModel().sweep().recorded().get().graph().size());
        out.put("drawn", window.graphPanel().currentLayout().nodes().size());
        out.put("runs", runs);
        out.put("startup_ms", (double) startupMs);
        out.put("first", done.get(0));
        Map<String, Double> median = new LinkedHashMap<>();
        for (String k : done.get(0).keySet()) {
            median.put(k, median(done.stream().mapToDouble(m -> m.get(k)).toArray()));
        }
        out.put("median", median);
        out.put("peak_heap_mb", peaks.stream().mapToDouble(Double::doubleValue).max().orElse(0));
        result = out;
        try {
            System.out.println(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(out));
        } catch (Exception e) {
            System.out.println(out);
        }
        Platform.exit();
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
        AppLauncher.quietJavaFx();
        Application.launch(BenchUiOpen.class);
        if (failure != null) {
            System.err.println("error: " + file + " did not open: " + failure);
            return 2;
        }
        return 0;
    }
}
