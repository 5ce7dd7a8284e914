package io.gradscope.bench.tools;

import io.gradscope.bench.ModelWorkloads;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.ops.OpObserver;
import io.gradscope.engine.ops.OpObservers;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a bench model's training step goes, op by op: the bench's model (ModelWorkloads: NAME.onnx, weights
 * generated) imported and run as `bench` runs it, an op observer taking the time since the op before
 * (the op's own work and whatever ran between the two: autograd's bookkeeping, unrecorded ops inside it).
 * Prints ms per step by op name (forward or backward), then the costliest op + output shape rows.
 * Usage: scripts/bench/step_breakdown.sh [MODEL] [STEPS]
 */
public final class StepBreakdown {
    static long last;
    static final Map<String, double[]> BY_KEY = new HashMap<>();
    static final Map<String, double[]> BY_NAME = new HashMap<>();
    static boolean on;

    public static void main(String[] args) throws Exception {
        String model = args.length > 0 ? args[0] : "resnet18_224";
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        Step step = load(model);
        Program p = step.program();
        RunOptions options = step.options();
        MemoryOptions memory = step.memory();
        OpObservers.install(OpObserver.TRACE + 1, (op, ctx, o, mode) -> {
            if (!on) {
                return;
            }
            long now = System.nanoTime();
            double ms = (now - last) / 1e6;
            String phase = (mode & GradMode.IN_BACKWARD) != 0 ? "bwd " : "fwd ";
            StringBuilder shapes = new StringBuilder();
            for (Tensor t : ctx.inputs()) {
                shapes.append(Arrays.toString(t.shape())).append(' ');
            }
            add(BY_KEY, phase + op.label() + " " + shapes + "-> " + Arrays.toString(o.shape()), ms);
            add(BY_NAME, phase + op.name(), ms);
            last = System.nanoTime();
        });
        List<Double> totals = new ArrayList<>();
        for (int s = 0; s < steps + 5; s++) {
            if (s == 5) {
                BY_KEY.clear();
                BY_NAME.clear();
            }
            on = true;
            long t0 = System.nanoTime();
            last = t0;
            ProgramRun run = p.run(options, memory, (phase, done, total) -> { });
            on = false;
            if (s >= 5) {
                totals.add((System.nanoTime() - t0) / 1e6);
            }
            if (run.gradients() != null) {
                run.gradients().byNode().values().forEach(g -> g.storage().release());
            }
        }
        totals.sort(null);
        double sum = BY_NAME.values().stream().mapToDouble(v -> v[0]).sum() / steps;
        System.out.printf("%s: step median %.1f ms (min %.1f), %d steps; ops account for %.1f ms a step%n", model,
                totals.get(totals.size() / 2), totals.get(0), steps, sum);
        print("by op", BY_NAME, steps, 40);
        print("by op and shapes", BY_KEY, steps, Integer.parseInt(System.getProperty("rows", "40")));
    }

    /** A bench model's program with its generated weights and a random input, and how the bench runs it. */
    record Step(Program program, RunOptions options, MemoryOptions memory) {
    }

    /** The bench's model imported, float32, as `bench` runs it ({@link ModelWorkloads#load}). */
    static Step load(String model) {
        ModelWorkloads.Imported m = ModelWorkloads.load(model);
        return new Step(m.program(), m.options(), ModelWorkloads.MEMORY);
    }

    static void add(Map<String, double[]> m, String key, double ms) {
        double[] v = m.computeIfAbsent(key, k -> new double[2]);
        v[0] += ms;
        v[1]++;
    }

    static void print(String title, Map<String, double[]> m, int steps, int rows) {
        System.out.println("== " + title + " (ms a step, calls a step)");
        m.entrySet().stream().sorted((a, b) -> Double.compare(b.getValue()[0], a.getValue()[0])).limit(rows)
                .forEach(e -> System.out.printf("%8.2f %5.0f  %s%n", e.getValue()[0] / steps, e.getValue()[1] / steps, e.getKey()));
    }
}
