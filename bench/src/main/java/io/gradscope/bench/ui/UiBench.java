package io.gradscope.bench.ui;

import io.gradscope.app.launch.AppLauncher;
import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.view.GraphPanel;
import io.gradscope.app.view.MainWindow;
import io.gradscope.app.viewmodel.RecentFiles;
import io.gradscope.app.viewmodel.SweepViewModel;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceGraph;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;

/**
 * {@code gradscope bench-ui}: a generated program of about {@code --nodes} vertices (2,000 by
 * default), laid out and first drawn as the app shows it (repeats folded) and fully unfolded, then
 * stepped with every node in view. Prints medians (ms) as one JSON object, with the parts: repeat
 * detection, layout, first draw. Needs a display (xvfb-run works).
 */
public final class UiBench extends Application {
    static int runs = 5;
    static int nodes = 2000;

    /**
     * A deep residual chain like a real network: each block has its own weight, and each block's
     * input fans out to two consumers. Five vertices and seven edges per block.
     */
    static String program(int nodes) {
        StringBuilder sb = new StringBuilder("x = input(4, 8)\n");
        String prev = "x";
        int made = 1;
        int i = 0;
        while (made + 5 < nodes) {
            sb.append("w").append(i).append(" = param(8, 8)\n");
            sb.append("a").append(i).append(" = tanh(").append(prev).append(" @ w").append(i).append(")\n");
            sb.append("b").append(i).append(" = a").append(i).append(" * ").append(prev).append(" + a").append(i).append("\n");
            made += 5;
            prev = "b" + i;
            i++;
        }
        sb.append("loss = sum(").append(prev).append(")\n");
        return sb.toString();
    }

    /** Runs the UI thread's events until the memory panel's track of the run shown is read. */
    private static void awaitMemoryTrack(MainWindow w) {
        var track = w.viewModel().memory().track();
        if (track.get() != null) {
            return;
        }
        Object key = new Object();
        javafx.beans.value.ChangeListener<Object> read = (o, a, b) -> {
            if (b != null) {
                javafx.application.Platform.exitNestedEventLoop(key, null);
            }
        };
        track.addListener(read);
        javafx.application.Platform.enterNestedEventLoop(key);
        track.removeListener(read);
    }

    private static double ms(long from, long to) {
        return (to - from) / 1e6;
    }

    @Override
    public void start(Stage stage) {
        StringBuilder recent = new StringBuilder();
        MainWindow w = new MainWindow(new RecentFiles(recent::toString, s -> { }));
        Scene scene = new Scene(w, 1280, 820);
        w.install(scene);
        stage.setScene(scene);
        stage.show();
        ProgramRun run = Program.parse("bench.grad", program(nodes)).run(new RunOptions(DType.FLOAT32, 0, Map.of()));
        TraceGraph graph = TraceGraph.of(run.trace());
        SweepViewModel sweep = w.viewModel().sweep();
        GraphPanel panel = w.graphPanel();
        double[] detect = new double[runs];
        double[] layout = new double[runs];
        double[] total = new double[runs];
        double[] layoutAll = new double[runs];
        double[] drawAll = new double[runs];
        double[] totalAll = new double[runs];
        for (int r = 0; r < runs; r++) {
            // As the app opens a program: repeated blocks folded.
            long t0 = System.nanoTime();
            GraphLayout layouts = GraphLayout.of(graph);
            long t1 = System.nanoTime();
            GraphLayout.Result folded = layouts.layout(layouts.hierarchy().runs());
            long t2 = System.nanoTime();
            sweep.show(run, graph, folded);
            panel.drawNow();
            panel.canvas().snapshot(null, null);
            long t3 = System.nanoTime();
            detect[r] = ms(t0, t1);
            layout[r] = ms(t1, t2);
            total[r] = ms(t0, t3);
            // Everything unfolded, laid out from scratch: every vertex drawn.
            long u0 = System.nanoTime();
            GraphLayout fresh = GraphLayout.of(graph);
            GraphLayout.Result all = fresh.layout(Set.of());
            long u1 = System.nanoTime();
            sweep.show(run, graph, all);
            panel.drawNow();
            panel.canvas().snapshot(null, null);
            long u2 = System.nanoTime();
            layoutAll[r] = ms(u0, u1);
            drawAll[r] = ms(u1, u2);
            totalAll[r] = ms(u0, u2);
        }
        // Steps with the whole unfolded graph in view (the most there is to draw), once the memory
        // panel has its timeline (read off the UI thread): each step moves its cursor too.
        awaitMemoryTrack(w);
        panel.fit();
        double[] step = new double[Math.min(200, sweep.steps())];
        double[] stepModel = new double[step.length];
        double[] stepDraw = new double[step.length];
        for (int i = 0; i < step.length; i++) {
            long t0 = System.nanoTime();
            sweep.stepForward();
            long t1 = System.nanoTime();
            panel.drawNow();
            long t2 = System.nanoTime();
            panel.canvas().snapshot(null, null);
            step[i] = ms(t0, System.nanoTime());
            stepModel[i] = ms(t0, t1);
            stepDraw[i] = ms(t1, t2);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("vertices", graph.size());
        out.put("edges", graph.edges().size());
        out.put("layout_first_draw_ms_median", median(total));
        out.put("repeat_detection_ms_median", median(detect));
        out.put("layout_folded_ms_median", median(layout));
        out.put("layout_first_draw_unfolded_ms_median", median(totalAll));
        out.put("layout_unfolded_ms_median", median(layoutAll));
        out.put("first_draw_unfolded_ms_median", median(drawAll));
        out.put("step_ms_median", median(step));
        out.put("step_ms_max", round(Arrays.stream(step).max().orElse(0)));
        // The parts of a step: the view-model and the inspector; the canvas commands; the rest is rendering them.
        out.put("step_model_inspector_ms_median", median(stepModel));
        out.put("step_canvas_commands_ms_median", median(stepDraw));
        try {
            System.out.println(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(out));
        } catch (Exception e) {
            System.out.println(out);
        }
        Platform.exit();
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return round(s[s.length / 2]);
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    public static int launch(int nodes) {
        if (System.getenv("DISPLAY") == null) {
            throw new io.gradscope.engine.GradscopeException("bench-ui needs a display: run it as xvfb-run -a ./gradscope bench-ui");
        }
        UiBench.nodes = nodes;
        AppLauncher.quietJavaFx();
        Application.launch(UiBench.class);
        return 0;
    }
}
