package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.diagnose.RunDiff;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope diff}: the same program run two ways, compared value by value. */
@Command(name = "diff", mixinStandardHelpOptions = true,
        description = {"Runs a program two ways and prints its values ranked by how much they differ: the largest "
                + "relative difference max|a − b| / max|b| of each value and of its upstream gradient (b is the reference)."},
        footer = {"", "A side is a comma-separated list of settings: dtype=float32|float64, device=cpu|cuda, seed=N, "
                + "remat=none|segments|sqrt|budget=BYTES (plain against recomputed), program=FILE (another version of the program: values are then paired by name).",
            "", "Exit status: 0 success; 2 a mistake in a program, an option or a file; 1 an internal failure."})
public final class DiffCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROGRAM.grad|STEP/", description = "The program to run both ways, or a PyTorch "
            + "training step captured by python/gradscope_torch.py (a folder): then it is run once (--dtype) and every module's "
            + "output, the loss and every parameter's gradient are set beside PyTorch's, in topological order, with the first "
            + "divergence named.")
    Path program;

    @Option(names = "--a", paramLabel = "SETTINGS", defaultValue = "dtype=float32",
            description = "The run compared (default: ${DEFAULT-VALUE}).")
    String a;

    @Option(names = "--b", paramLabel = "SETTINGS", defaultValue = "dtype=float64",
            description = "The reference run (default: ${DEFAULT-VALUE}).")
    String b;

    @Option(names = "--top", paramLabel = "N", defaultValue = "20", description = "Rows printed (default: ${DEFAULT-VALUE}).")
    int top;

    @Mixin
    ProgramInputs run = new ProgramInputs();

    @Override
    public Integer call() {
        if (top < 0) {
            throw new GradscopeException("--top must be 0 or more rows, not " + top);
        }
        if (io.gradscope.engine.step.StepFolder.isStep(program)) {
            if (!a.equals("dtype=float32") || !b.equals("dtype=float64")) {
                throw new GradscopeException("--a and --b compare two runs of a program; a captured step is compared with PyTorch's "
                        + "own run (--dtype chooses ours)");
            }
            return StepDiffTable.print(program, run);
        }
        // The --input files are read once, for both sides.
        RunOptions base = run.options(Program.load(program));
        ProgramRun ra = side("--a", a, base);
        ProgramRun rb = side("--b", b, base);
        List<RunDiff.Row> rows = RunDiff.of(ra.trace(), rb.trace());
        // Which two runs: a new user could not tell from the table alone.
        System.out.printf(Locale.ROOT, "a: %s, against b (the reference): %s; max|a - b| / max|b| of each value and gradient%n", a, b);
        System.out.printf(Locale.ROOT, "%-16s %5s  %-24s %12s %12s%n", "node", "line", "op", "value", "gradient");
        for (RunDiff.Row r : rows.subList(0, Math.min(Math.max(top, 0), rows.size()))) {
            System.out.printf(Locale.ROOT, "%-16s %5d  %-24s %12s %12s%n", r.title(), r.line(), r.op(), num(r.valueDiff()),
                    num(r.gradientDiff()));
        }
        return 0;
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3e", v);
    }

    private ProgramRun side(String option, String settings, RunOptions base) {
        Path file = program;
        DType dt = base.dtype();
        Device dev = base.device();
        long seed = base.seed();
        RematPolicy remat = RematPolicy.SEGMENTS;
        for (String kv : settings.split(",")) {
            String[] p = kv.strip().split("=", 2);
            if (p.length != 2 || p[1].isEmpty()) {
                throw new GradscopeException(option + " " + settings + ": expected KEY=VALUE settings, e.g. dtype=float32");
            }
            switch (p[0]) {
                case "dtype" -> dt = switch (p[1]) {
                    case "float32" -> DType.FLOAT32;
                    case "float64" -> DType.FLOAT64;
                    default -> throw new GradscopeException(option + ": dtype must be float32 or float64, not '" + p[1] + "'");
                };
                case "device" -> {
                    ProgramInputs probe = new ProgramInputs();
                    if (!p[1].equals("cpu") && !p[1].equals("cuda")) {
                        throw new GradscopeException(option + ": device must be cpu or cuda, not '" + p[1] + "'");
                    }
                    probe.device = p[1];
                    dev = probe.device();
                }
                case "seed" -> {
                    try {
                        seed = Long.parseLong(p[1]);
                    } catch (NumberFormatException e) {
                        throw new GradscopeException(option + ": seed must be a whole number, not '" + p[1] + "'");
                    }
                }
                case "program" -> file = Path.of(p[1]);
                case "remat" -> {
                    try {
                        remat = RematPolicy.parse(p[1]);
                    } catch (GradscopeException e) {
                        throw new GradscopeException(option + ": " + e.getMessage().replaceFirst("^--remat ", "remat "));
                    }
                }
                default -> throw new GradscopeException(option + ": unknown setting '" + p[0]
                        + "' (expected dtype, device, seed, remat or program)");
            }
        }
        Program prog = Program.load(file);
        prog.check(dt);
        return prog.run(new RunOptions(dt, seed, base.inputs(), dev), new MemoryOptions(remat, true), (phase, done, total) -> { });
    }
}
