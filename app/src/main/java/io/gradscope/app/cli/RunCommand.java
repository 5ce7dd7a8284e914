package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.alloc.MemoryTimeline;
import io.gradscope.engine.alloc.Retention;
import io.gradscope.engine.recompute.RematPlanner;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope run}: runs a program's forward and backward pass and writes .npy results. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Runs a .grad program: the forward pass, then the backward pass from its objective "
                + "(the last statement, a scalar). Prints the objective's value."},
        footer = {"", "With --out DIR it writes DIR/objective.npy (0-d), DIR/grad/NAME.npy for every param and every "
                + "input(..., grad=True), and DIR/value/NAME.npy for every named statement (C order, little-endian). "
                + "DIR must be new, empty, or hold an earlier run's results (which are replaced, and said so); the files "
                + "are written beside it first and moved into place when complete.",
            "", "Memory: the Java heap's limit is printed with an out-of-memory error; raise it with "
                + "./gradscope --max-memory SIZE run ... (e.g. 16g) or JAVA_OPTS=-Xmx16g.",
            "", "Exit status: 0 success; 2 a mistake in the program, an option or an input file, reported as one line "
                + "FILE:LINE:COL: error: WHAT (or error: WHAT); 3 with --check-finite, a NaN or infinity did harm; "
                + "1 an internal failure."})
public final class RunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROGRAM.grad|STEP/", description = "The program to run, or a PyTorch training step "
            + "captured by python/gradscope_torch.py (a folder): its batch as the inputs, its loss as the objective; --out then "
            + "writes DIR/grad/NAME.npy by PyTorch parameter name and DIR/value/MODULE.npy by module path.")
    Path program;

    @Mixin
    ProgramInputs run = new ProgramInputs();

    @Option(names = "--out", paramLabel = "DIR", description = "Write objective, gradients and values as .npy files here.")
    Path out;

    @Option(names = "--remat", paramLabel = "none|segments|sqrt|budget=BYTES",
            description = "What the backward pass recomputes instead of keeping: none; segments (the program's "
                    + "'with checkpoint():' blocks, the default); sqrt (about √n segments along the longest chain); "
                    + "budget=BYTES (e.g. budget=64m: the cheapest saved values until the predicted peak fits). Given, it "
                    + "prints the predicted and the measured peak on standard error.")
    String remat;

    @Option(names = "--no-retain", description = "Release values and gradients as a training run does, instead of "
            + "keeping them for inspection: --out then writes the objective, the leaves' values and their gradients only "
            + "(the same as --retain none; run's default is --retain all).")
    boolean noRetain;

    @Mixin
    RetainOption retain = new RetainOption();

    @Option(names = "--check-finite", description = "Find where a NaN or infinity was born (forward or backward): print "
            + "it as FILE:LINE:COL: warning: ... with its inputs' statistics, and exit 3. An infinity that never reaches the "
            + "objective or a gradient (a -Inf mask before a softmax) is a note, exit 0.")
    boolean checkFinite;

    @Override
    public Integer call() throws IOException {
        RematPolicy policy = remat == null ? RematPolicy.SEGMENTS : RematPolicy.parse(remat);
        if (noRetain && retain.kind != null && retain.kind != Retention.Kind.NONE) {
            throw new GradscopeException("--no-retain and --retain " + retain.kind.name().toLowerCase(java.util.Locale.ROOT)
                    + " contradict each other (--no-retain is --retain none)");
        }
        Retention.Kind keep = noRetain ? Retention.Kind.NONE : retain.or(Retention.Kind.ALL);
        if (keep != Retention.Kind.ALL && checkFinite) {
            throw new GradscopeException("--check-finite reads every value and gradient; it cannot be used with "
                    + (noRetain ? "--no-retain" : "--retain " + keep.name().toLowerCase(java.util.Locale.ROOT)));
        }
        OutputFolder folder = out == null ? null : OutputFolder.check(out);
        try (StepProgram step = io.gradscope.engine.step.StepFolder.isStep(program) ? StepProgram.open(program) : null) {
            Program p = Program.load(step == null ? program : step.program());
            RunOptions options = run.options(p);
            RematPlanner.Planned planned = remat == null ? null : p.plan(options, policy, true);
            ProgramRun result = keep == Retention.Kind.FIT
                    ? p.run(options, planned != null ? planned : p.plan(options, policy, true),
                            Retention.of(keep, HeapLimit.bytes(), planned != null ? planned.predictedPeak() : -1), (phase, done, total) -> { })
                    : p.run(options, new MemoryOptions(policy, keep == Retention.Kind.ALL), (phase, done, total) -> { });
            boolean noneHeld = keep == Retention.Kind.NONE;
            System.out.println(format(result.objective().item(), options.dtype()));
            if (planned != null) {
                MemoryTimeline t = result.timeline();
                System.err.println("memory: --remat " + policy + ": peak " + HeapLimit.human(t.peakBytes()) + " measured, "
                        + HeapLimit.human(planned.predictedPeak()) + " predicted"
                        + (policy.kind() == RematPolicy.Kind.BUDGET ? (planned.fits() ? " (fits)" : " (does not fit)") : "")
                        + "; " + result.memory().recomputedOps() + " ops recomputed"
                        + (noneHeld ? "" : "; " + HeapLimit.human(t.last().of(MemoryCategory.HELD_FOR_INSPECTION))
                        + " held for inspection besides"));
            }
            if (folder != null) {
                OutputFolder.report(folder.write(dir -> {
                    if (step == null) {
                        write(result, dir);
                    } else {
                        step.write(result, dir);
                    }
                }));
            }
            return Finite.report(step == null ? program : step.program(), result, checkFinite);
        }
    }

    static String format(double v, DType dt) {
        return dt == DType.FLOAT32 ? Float.toString((float) v) : Double.toString(v);
    }

    private static void write(ProgramRun run, Path out) throws IOException {
        Npy.write(run.objective(), out.resolve("objective.npy"));
        for (Leaf l : run.leaves()) {
            if (l.grad()) {
                Npy.write(run.gradient(l.name()), out.resolve("grad").resolve(l.name() + ".npy"));
            }
        }
        for (Map.Entry<String, Tensor> e : run.values().entrySet()) {
            // Without retaining, only what outlives the step is there: the leaves' values.
            Npy.write(e.getValue(), out.resolve("value").resolve(e.getKey() + ".npy"));
        }
    }
}
