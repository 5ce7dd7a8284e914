package io.gradscope.app.cli;

import io.gradscope.app.service.Direction;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.forward.Hvp;
import io.gradscope.engine.run.Directional;
import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope hvp}: a Hessian-vector product of the objective with respect to one leaf. */
@Command(name = "hvp", mixinStandardHelpOptions = true,
        description = {"Hessian-vector product H·v of the objective with respect to one leaf, forward-over-reverse "
                + "(default) or reverse-over-reverse. Prints its shape and L2 norm."},
        footer = {"", "With --out DIR it writes DIR/hvp.npy, shaped like the leaf.",
            "", "Exit status: 0 success; 2 a mistake in the program, an option or a file (one line); 1 an internal failure; "
                + "130 stopped by Ctrl+C (one line; nothing written)."})
public final class HvpCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROGRAM.grad", description = "The program to run.")
    Path program;

    @Option(names = "--wrt", paramLabel = "LEAF", required = true,
            description = "The leaf: a param, or an input(..., grad=True).")
    String wrt;

    @Option(names = "--vector", paramLabel = "FILE.npy|random|ones|onehot:I", defaultValue = "random",
            description = "The vector v (default: ${DEFAULT-VALUE}).")
    String vector;

    @Option(names = "--method", paramLabel = "fwd-rev|rev-rev", defaultValue = "fwd-rev",
            description = "Forward-over-reverse or reverse-over-reverse (default: ${DEFAULT-VALUE}).")
    String method;

    @Option(names = "--out", paramLabel = "DIR", description = "Write hvp.npy here.")
    Path out;

    @Mixin
    ProgramInputs run = new ProgramInputs();

    @Override
    public Integer call() throws IOException {
        Interrupt.install("hvp");
        Hvp.Method m = null;
        for (Hvp.Method x : Hvp.Method.values()) {
            if (x.flag().equals(method)) {
                m = x;
            }
        }
        if (m == null) {
            throw new GradscopeException("--method must be fwd-rev or rev-rev, not '" + method + "'");
        }
        OutputFolder folder = out == null ? null : OutputFolder.check(out, OutputFolder.Layout.HVP);
        Program p = Program.load(program);
        RunOptions options = run.options(p);
        Leaf leaf = ProgramInputs.wrt(p, options, wrt, true);
        Tensor v = Direction.parse("--vector", vector, leaf.shape(), options.dtype(), options.seed());
        Tensor hv = Directional.hvp(p, options, wrt, v, m);
        double norm = 0;
        for (double x : hv.toDoubleArray()) {
            norm += x * x;
        }
        System.out.println("H·v for " + wrt + " " + Shapes.str(hv.shape()) + ": L2 norm "
                + RunCommand.format(Math.sqrt(norm), options.dtype()));
        if (folder != null) {
            OutputFolder.report(folder.write(dir -> Npy.write(hv, dir.resolve("hvp.npy"))));
        }
        return 0;
    }
}
