package io.gradscope.app.cli;

import io.gradscope.engine.program.Leaf;
import io.gradscope.engine.program.Npy;
import io.gradscope.engine.program.Program;
import io.gradscope.engine.program.ProgramRun;
import io.gradscope.engine.program.RunOptions;
import io.gradscope.engine.tensor.DType;
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
                + "FILE:LINE:COL: error: WHAT (or error: WHAT); 3 with --check-finite, a NaN or infinity was found; "
                + "1 an internal failure."})
public final class RunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROGRAM.grad", description = "The program to run.")
    Path program;

    @Mixin
    ProgramInputs run = new ProgramInputs();

    @Option(names = "--out", paramLabel = "DIR", description = "Write objective, gradients and values as .npy files here.")
    Path out;

    @Option(names = "--check-finite", description = "Find where a NaN or infinity was born (forward or backward): print "
            + "it as FILE:LINE:COL: warning: ... with its inputs' statistics, and exit 3.")
    boolean checkFinite;

    @Override
    public Integer call() throws IOException {
        OutputFolder folder = out == null ? null : OutputFolder.check(out);
        Program p = Program.load(program);
        RunOptions options = run.options(p);
        ProgramRun result = p.run(options);
        System.out.println(format(result.objective().item(), options.dtype()));
        if (folder != null) {
            OutputFolder.report(folder.write(dir -> write(result, dir)));
        }
        return Finite.report(program, result, checkFinite);
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
            Npy.write(e.getValue(), out.resolve("value").resolve(e.getKey() + ".npy"));
        }
    }
}
