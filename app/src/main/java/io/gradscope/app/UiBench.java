package io.gradscope.app;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.view.MainWindow;
import io.gradscope.app.viewmodel.SweepViewModel;
import io.gradscope.engine.program.Program;
import io.gradscope.engine.program.ProgramRun;
import io.gradscope.engine.program.RunOptions;
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
 * {@code gradscope bench-ui}: a generated 2,000-node program, laid out and first drawn, then stepped.
 * Prints medians (ms) as one JSON object. Needs a display (xvfb-run works).
 */
public final class UiBench extends Application {
    static int runs = 5;

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

    @Override
    public void start(Stage stage) {
        MainWindow w = new MainWindow();
        Scene scene = new Scene(w, 1280, 820);
        w.install(scene);
        stage.setScene(scene);
        stage.show();
        ProgramRun run = Program.parse("bench.grad", program(2000)).run(new RunOptions(DType.FLOAT32, 0, Map.of()));
        TraceGraph graph = TraceGraph.of(run.trace());
        SweepViewModel sweep = w.viewModel().sweep();
        double[] layoutDraw = new double[runs];
        double[] layoutOnly = new double[runs];
        for (int r = 0; r < runs; r++) {
            long t0 = System.nanoTime();
            GraphLayout.Result layout = GraphLayout.layout(graph, Set.of());
            long t1 = System.nanoTime();
            sweep.show(run, graph, layout);
            scene.snapshot(null);
            w.graphPanel().drawNow();
            layoutDraw[r] = (System.nanoTime() - t0) / 1e6;
            layoutOnly[r] = (t1 - t0) / 1e6;
        }
        Arrays.sort(layoutOnly);
        double[] step = new double[Math.min(200, sweep.steps())];
        for (int i = 0; i < step.length; i++) {
            long t0 = System.nanoTime();
            sweep.stepForward();
            w.graphPanel().drawNow();
            step[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(layoutDraw);
        Arrays.sort(step);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("vertices", graph.size());
        out.put("edges", graph.edges().size());
        out.put("layout_first_draw_ms_median", round(layoutDraw[runs / 2]));
        out.put("layout_only_ms_median", round(layoutOnly[runs / 2]));
        out.put("step_ms_median", round(step[step.length / 2]));
        out.put("step_ms_max", round(step[step.length - 1]));
        try {
            System.out.println(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(out));
        } catch (Exception e) {
            System.out.println(out);
        }
        Platform.exit();
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    public static int launch() {
        if (System.getenv("DISPLAY") == null) {
            throw new io.gradscope.engine.GradscopeException("bench-ui needs a display: run it as xvfb-run -a ./gradscope bench-ui");
        }
        java.util.logging.Logger.getLogger("com.sun.javafx.application.PlatformImpl").setLevel(java.util.logging.Level.SEVERE);
        Application.launch(UiBench.class);
        return 0;
    }
}
