package io.gradscope.app.cli;

import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.step.StepDiff;
import java.nio.file.Path;
import java.util.Locale;

/** {@code gradscope diff STEP/}: the table of a captured step's values and gradients, ours against PyTorch's. */
final class StepDiffTable {
    private StepDiffTable() {
    }

    static int print(Path dir, ProgramInputs inputs) {
        try (StepProgram step = StepProgram.open(dir)) {
            Program p = Program.load(step.program());
            RunOptions options = inputs.options(p);
            ProgramRun run = p.run(options, new MemoryOptions(RematPolicy.SEGMENTS, true), (phase, done, total) -> { });
            StepDiff d = StepDiff.of(step.folder, step.imported, p, run);
            String dtype = options.dtype().toString().toLowerCase(Locale.ROOT);
            System.out.printf(Locale.ROOT, "%s: %s%n", dir, step.folder.describe());
            System.out.printf(Locale.ROOT, "ours (%s) against PyTorch's (float32): ‖ours − PyTorch's‖ / ‖PyTorch's‖ of each module's "
                    + "output, the loss and each parameter's gradient, in topological order; beyond float32 rounding: > %.0e%n",
                    dtype, StepDiff.TOLERANCE);
            for (String note : step.folder.notes()) {
                System.out.println("note: " + note);
            }
            int w = Math.max(24, d.rows().stream().mapToInt(r -> r.name().length()).max().orElse(0));
            int wn = Math.max(16, d.rows().stream().mapToInt(r -> r.node().length()).max().orElse(0));
            String fmt = "%-8s  %-" + w + "s  %-" + wn + "s  %12s  %12s  %10s  %s%n";
            System.out.printf(Locale.ROOT, fmt, "kind", "name", "node", "ours ‖·‖", "PyTorch ‖·‖", "rel. error", "");
            for (StepDiff.Row r : d.rows()) {
                System.out.printf(Locale.ROOT, fmt, r.kind().toString().toLowerCase(Locale.ROOT), r.name(), r.node(), sci(r.oursNorm()),
                        sci(r.torchNorm()), sci(r.relError()), r.diverges() ? "DIVERGES" : "ok");
            }
            long n = d.rows().stream().filter(StepDiff.Row::diverges).count();
            System.out.println(d.first().map(r -> String.format(Locale.ROOT, "first divergence: %s %s at node %s (relative error %s); "
                    + "%d of %d beyond float32 rounding", r.kind() == StepDiff.Kind.GRADIENT ? "the gradient of" : r.kind() == StepDiff.Kind.LOSS
                    ? "the" : "the output of", r.name(), r.node(), sci(r.relError()), n, d.rows().size()))
                    .orElse("no divergence: all " + d.rows().size() + " tensors within float32 rounding of PyTorch's"));
            return 0;
        }
    }

    private static String sci(double x) {
        return Double.isNaN(x) ? "-" : Double.isInfinite(x) ? "shape" : String.format(Locale.ROOT, "%.3e", x);
    }
}
