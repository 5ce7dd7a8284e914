package io.gradscope.app.service;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.engine.program.Program;
import io.gradscope.engine.program.ProgramRun;
import io.gradscope.engine.program.RunOptions;
import java.util.Set;
import javafx.concurrent.Task;

/**
 * Runs a program and lays out its graph off the FX thread. The result is immutable: the run the
 * engine recorded and the positions to draw it at.
 */
public final class RunService {
    private RunService() {
    }

    /** What a finished run hands to the UI. */
    public record Result(ProgramRun run, GraphLayout.Result layout, long runMillis, long layoutMillis) {
    }

    /** A task that parses, checks, runs and lays out; it fails with the engine's exception on a mistake. */
    public static Task<Result> task(String file, String source, RunOptions options) {
        return new Task<>() {
            @Override
            protected Result call() {
                updateMessage("Running " + file + "…");
                long t0 = System.nanoTime();
                // Progress: the forward statements are the first half of the bar, the backward steps the second.
                ProgramRun run = Program.parse(file, source).run(options, (phase, done, total) -> {
                    double f = total == 0 ? 1 : (double) done / total;
                    updateProgress(phase.equals("forward") ? f / 2 : 0.5 + f / 2, 1.0);
                    updateMessage((phase.equals("forward") ? "Running " : "Backward pass of ") + file + ": " + done + " of " + total);
                });
                long t1 = System.nanoTime();
                if (isCancelled()) {
                    return null;
                }
                updateMessage("Laying out " + run.programGraph().vertices().size() + " nodes…");
                GraphLayout.Result layout = GraphLayout.layout(run.programGraph(), Set.of());
                long t2 = System.nanoTime();
                return new Result(run, layout, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000);
            }
        };
    }
}
