package io.gradscope.bench.ui;

import io.gradscope.app.service.ModelImport;
import io.gradscope.app.view.GraphPanel;
import io.gradscope.app.view.MainWindow;
import io.gradscope.app.viewmodel.SessionViewModel;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javafx.animation.AnimationTimer;
import javafx.application.Platform;

/**
 * Times one File → Open in a window, from the command to the first frame that shows the graph, in
 * parts that follow each other: {@code editor} (reading the file into the editor until the worker
 * starts; for a model, importing it first), the worker's {@code parse}, {@code plan}, {@code run}
 * (forward and backward), {@code trace} (the graph read from the trace) and {@code layout}, the
 * {@code handover} back to the UI thread, {@code show} (view-models, inspector, panels) and
 * {@code first_draw} (the canvas commands and the frame that renders them).
 */
public final class OpenTimer {
    /** The parts of an open, in the order they happen; together they make {@code total}. */
    public static final List<String> PARTS = List.of("editor", "parse", "plan", "run", "trace", "layout", "handover", "show",
            "first_draw");

    private OpenTimer() {
    }

    /**
     * Opens {@code file} in {@code window} (call on the UI thread) and hands the parts and the total (ms)
     * to {@code done}, or why it did not open to {@code failed}, on the UI thread.
     */
    public static void time(MainWindow window, Path file, Consumer<Map<String, Double>> done, Consumer<String> failed) {
        SessionViewModel vm = window.viewModel();
        if (vm.running().get()) {
            Platform.runLater(() -> time(window, file, done, failed));
            return;
        }
        GraphPanel panel = window.graphPanel();
        SessionViewModel.Shown before = vm.lastShown().get();
        long t0 = System.nanoTime();
        vm.open(file);
        if (!vm.running().get() && !ModelImport.isModel(file)) {
            failed.accept(vm.status().get());
            return;
        }
        // The frames drawn when the run is shown: the first drawn after that one shows it.
        int[] framesAtShow = {-1};
        javafx.beans.value.ChangeListener<SessionViewModel.Shown> shown = (o, a, b) -> framesAtShow[0] = panel.frames();
        vm.lastShown().addListener(shown);
        new AnimationTimer() {
            private boolean drawn;

            @Override
            public void handle(long now) {
                SessionViewModel.Shown s = vm.lastShown().get();
                if (s == before) {
                    if (!vm.running().get() && (vm.error().get() != null || vm.status().get().startsWith("Cannot open"))) {
                        stop();
                        vm.lastShown().removeListener(shown);
                        failed.accept(vm.error().get() != null ? vm.error().get().message() : vm.status().get());
                    }
                    return;
                }
                if (panel.frames() <= framesAtShow[0]) {
                    return;
                }
                // The pulse after the one whose start found the canvas drawn: that frame has been rendered.
                if (!drawn) {
                    drawn = true;
                    return;
                }
                stop();
                vm.lastShown().removeListener(shown);
                done.accept(parts(t0, s, System.nanoTime()));
            }
        }.start();
    }

    private static Map<String, Double> parts(long t0, SessionViewModel.Shown s, long frame) {
        Map<String, Double> parts = new LinkedHashMap<>();
        parts.put("editor", ms(s.times().startedAt() - t0));
        parts.put("parse", ms(s.times().parseNs()));
        parts.put("plan", ms(s.times().planNs()));
        parts.put("run", ms(s.times().runNs()));
        parts.put("trace", ms(s.times().traceNs()));
        parts.put("layout", ms(s.times().layoutNs()));
        parts.put("handover", ms(s.showStart() - s.times().finishedAt()));
        parts.put("show", ms(s.showEnd() - s.showStart()));
        parts.put("first_draw", ms(frame - s.showEnd()));
        parts.put("total", ms(frame - t0));
        return parts;
    }

    private static double ms(long ns) {
        return Math.round(ns / 1e5) / 10.0;
    }
}
