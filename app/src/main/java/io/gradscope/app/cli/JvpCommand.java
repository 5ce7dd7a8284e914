package io.gradscope.app.cli;

import io.gradscope.app.service.Direction;
import io.gradscope.engine.run.Directional;
import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope jvp}: forward mode, one pass: every named value's tangent for a tangent of one leaf. */
@Command(name = "jvp", mixinStandardHelpOptions = true,
        description = {"Forward mode: runs the program once carrying a tangent of one leaf (no backward pass) and prints "
                + "the objective's directional derivative."},
        footer = {"", "With --out DIR it writes DIR/jvp.npy (0-d) and DIR/tangent/NAME.npy for every named value "
                + "(its Jacobian-vector product).",
            "", "Exit status: 0 success; 2 a mistake in the program, an option or a file (one line); 1 an internal failure."})
public final class JvpCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROGRAM.grad", description = "The program to run.")
    Path program;

    @Option(names = "--wrt", paramLabel = "LEAF", required = true, description = "The leaf whose tangent is given.")
    String wrt;

    @Option(names = "--tangent", paramLabel = "FILE.npy|ones|random|onehot:I", defaultValue = "ones",
            description = "The leaf's tangent (default: ${DEFAULT-VALUE}).")
    String tangent;

    @Option(names = "--out", paramLabel = "DIR", description = "Write jvp.npy and tangent/NAME.npy here.")
    Path out;

    @Mixin
    ProgramInputs run = new ProgramInputs();

    @Override
    public Integer call() throws IOException {
        OutputFolder folder = out == null ? null : OutputFolder.check(out, OutputFolder.Layout.JVP);
        Program p = Program.load(program);
        RunOptions options = run.options(p);
        Leaf leaf = ProgramInputs.wrt(p, options, wrt, false);
        Tensor v = Direction.parse("--tangent", tangent, leaf.shape(), options.dtype(), options.seed());
        Directional.JvpResult r = Directional.jvp(p, options, wrt, v);
        System.out.println(RunCommand.format(r.jvp().item(), options.dtype()));
        Finite.tangents(program, p.assignedNames(), r);
        if (folder != null) {
            OutputFolder.report(folder.write(dir -> {
                Npy.write(r.jvp(), dir.resolve("jvp.npy"));
                for (Map.Entry<String, Tensor> e : r.tangents().entrySet()) {
                    if (e.getValue() != null) {
                        Npy.write(e.getValue(), dir.resolve("tangent").resolve(e.getKey() + ".npy"));
                    }
                }
            }));
        }
        return 0;
    }
}
