package io.gradscope.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.MemoryReport;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Shapes;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope memory}: a training step's memory under a remat policy, beside the plain step. */
@Command(name = "memory", mixinStandardHelpOptions = true,
        description = {"Runs a program's training step (forward and backward, values released as a training run releases "
                + "them) and reports its memory: the peak by category, the tensors live at the peak with their lines, the "
                + "ops recomputed and their FLOPs, and the step's time with and without recomputation.",
            "The peak counts active bytes (tensors), not what the allocator keeps cached (reserved, shown apart); the "
                + "predicted peak comes from running the plan on the meta device, which computes nothing."},
        footer = {"", "--remat: none keeps every value the backward pass reads; segments recomputes the program's "
                + "'with checkpoint():' blocks; sqrt places about √n segments along the longest chain; budget=BYTES "
                + "(e.g. budget=64m) recomputes the cheapest saved values until the predicted peak fits.",
            "", "Exit status: 0 success (also when a budget does not fit: it says so); 2 a mistake in the program, an "
                + "option or a file (one line); 1 an internal failure."})
public final class MemoryCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROGRAM.grad", description = "The program to run.")
    Path program;

    @Option(names = "--remat", paramLabel = "none|segments|sqrt|budget=BYTES", defaultValue = "segments",
            description = "What to recompute (default: ${DEFAULT-VALUE}).")
    String remat;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Option(names = "--runs", paramLabel = "N", defaultValue = "3",
            description = "Timed steps with and without recomputation, alternating; medians (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--top", paramLabel = "N", defaultValue = "12",
            description = "Rows of the live-at-the-peak table in text (default: ${DEFAULT-VALUE}; --json lists all).")
    int top;

    @Mixin
    ProgramInputs run = new ProgramInputs();

    @Override
    public Integer call() throws Exception {
        RematPolicy policy = RematPolicy.parse(remat);
        if (runs < 1) {
            throw new GradscopeException("--runs must be at least 1, not " + runs);
        }
        if (top < 0) {
            throw new GradscopeException("--top must be 0 or more rows, not " + top);
        }
        Program p = Program.load(program);
        RunOptions options = run.options(p);
        MemoryReport r = MemoryReport.measure(p, options, policy, runs);
        if (json) {
            System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(json(r, options)));
        } else {
            text(r, options);
        }
        return 0;
    }

    static ObjectNode json(MemoryReport r, RunOptions options) {
        ObjectMapper m = new ObjectMapper();
        ObjectNode o = m.createObjectNode();
        o.put("policy", r.policy().toString());
        o.put("dtype", options.dtype().label());
        o.put("device", r.device());
        o.put("peak_bytes", r.peakBytes());
        o.put("predicted_peak_bytes", r.predictedPeak());
        o.put("fits", r.fits());
        ObjectNode by = o.putObject("peak_by_category");
        r.peakByCategory().forEach((c, b) -> by.put(c.key(), b));
        o.put("peak_reserved_bytes", r.peakReserved());
        o.put("max_activation_bytes", r.maxActivations());
        o.put("max_working_bytes", r.maxWorking());
        ObjectNode plain = o.putObject("plain");
        plain.put("peak_bytes", r.plainPeak());
        plain.put("max_activation_bytes", r.plainMaxActivations());
        plain.put("max_working_bytes", r.plainMaxWorking());
        ArrayNode live = o.putArray("live_at_peak");
        for (MemoryReport.LiveTensor t : r.liveAtPeak()) {
            ObjectNode row = live.addObject();
            row.put("node", t.node());
            row.put("name", t.name());
            row.put("op", t.op());
            row.put("line", t.line());
            row.put("role", t.role().name().toLowerCase(Locale.ROOT));
            row.put("category", t.category().key());
            ArrayNode shape = row.putArray("shape");
            for (int d : t.shape()) {
                shape.add(d);
            }
            row.put("bytes", t.bytes());
        }
        o.put("recomputed_ops", r.recomputedOps());
        o.put("recomputed_flops", r.recomputedFlops());
        o.put("segments", r.segments());
        ObjectNode time = o.putObject("time_ms");
        time.put("plain", Math.round(r.plainMs() * 10) / 10.0);
        time.put("remat", Math.round(r.rematMs() * 10) / 10.0);
        return o;
    }

    private void text(MemoryReport r, RunOptions options) {
        System.out.printf("%s, %s on %s, --remat %s%s%n", program, options.dtype().label(), r.device(), r.policy(),
                r.policy().kind() == RematPolicy.Kind.BUDGET ? (r.fits() ? " (fits)" : " (does not fit: the best plan found)") : "");
        System.out.printf("peak %s measured, %s predicted (active bytes; allocator reserved at most %s)%n",
                HeapLimit.human(r.peakBytes()), HeapLimit.human(r.predictedPeak()), HeapLimit.human(r.peakReserved()));
        for (MemoryCategory c : r.peakByCategory().keySet()) {
            System.out.printf("  %-11s %12s%n", c.key(), HeapLimit.human(r.peakByCategory().get(c)));
        }
        System.out.printf("activations at most %s (plain: %s, %.1f%%); working bytes at most %s (plain: %s, %.1f%%); "
                        + "plain peak %s%n", HeapLimit.human(r.maxActivations()), HeapLimit.human(r.plainMaxActivations()),
                100.0 * r.maxActivations() / Math.max(1, r.plainMaxActivations()), HeapLimit.human(r.maxWorking()),
                HeapLimit.human(r.plainMaxWorking()), 100.0 * r.maxWorking() / Math.max(1, r.plainMaxWorking()),
                HeapLimit.human(r.plainPeak()));
        System.out.printf("live at the peak (%d tensors)%n", r.liveAtPeak().size());
        System.out.printf("  %-6s %-14s %-18s %5s %-10s %-14s %10s%n", "node", "name", "op", "line", "role", "shape", "bytes");
        int shown = 0;
        for (MemoryReport.LiveTensor t : r.liveAtPeak()) {
            if (shown++ >= top) {
                System.out.printf("  ... %d more%n", r.liveAtPeak().size() - top);
                break;
            }
            System.out.printf("  %-6d %-14s %-18s %5s %-10s %-14s %10s%n", t.node(), t.name() == null ? "" : cut(t.name(), 14),
                    t.op() == null ? "" : cut(t.op(), 18), t.line() > 0 ? Integer.toString(t.line()) : "",
                    t.role().name().toLowerCase(Locale.ROOT), Shapes.str(t.shape()), HeapLimit.human(t.bytes()));
        }
        System.out.printf("recomputed %d ops in %d segments, %s (estimated)%n", r.recomputedOps(), r.segments(),
                flops(r.recomputedFlops()));
        if (r.recomputedOps() == 0) {
            // Nothing recomputed: the two are the same step, and their ratio would only show the machine's noise.
            System.out.printf("step time %.1f ms (median of %d; nothing is recomputed, so with recomputation it is the same step)%n",
                    r.plainMs(), runs);
        } else {
            System.out.printf("step time %.1f ms plain, %.1f ms with recomputation (%.2fx; medians of %d, in pairs of alternating order)%n",
                    r.plainMs(), r.rematMs(), r.rematMs() / Math.max(1e-9, r.plainMs()), runs);
        }
    }

    /** FLOPs in the unit that shows them: "1.25 GFLOP", "3.4 MFLOP", "960 FLOP" (not "0.000 GFLOP"). */
    static String flops(double f) {
        String[] units = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP"};
        int u = 0;
        while (u < units.length - 1 && Math.abs(f) >= 1000) {
            f /= 1000;
            u++;
        }
        return (u == 0 ? String.format(Locale.ROOT, "%.0f", f) : String.format(Locale.ROOT, "%.3g", f)) + " " + units[u];
    }

    private static String cut(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }
}
