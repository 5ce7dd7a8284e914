package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.backend.Backends;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.program.Leaf;
import io.gradscope.engine.program.Names;
import io.gradscope.engine.program.Npy;
import io.gradscope.engine.program.Pos;
import io.gradscope.engine.program.Program;
import io.gradscope.engine.program.ProgramRun;
import io.gradscope.engine.program.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
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
                + "FILE:LINE:COL: error: WHAT (or error: WHAT); 1 an internal failure."})
public final class RunCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROGRAM.grad", description = "The program to run.")
    Path program;

    @Option(names = "--input", paramLabel = "NAME=FILE.npy",
            description = "The value of leaf NAME from a .npy file: floats (<f4, <f8) for input/param, integers (<i8, <i4) "
                    + "for labels; the shape must equal the declared one. Repeatable.")
    List<String> inputs = new ArrayList<>();

    @Option(names = "--seed", paramLabel = "N", defaultValue = "0",
            description = "Seed for the leaves not given with --input (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--dtype", paramLabel = "float32|float64", defaultValue = "float32",
            description = "Float type of the computation (default: ${DEFAULT-VALUE}).")
    String dtype;

    @Option(names = "--device", paramLabel = "cpu|cuda", defaultValue = "cpu",
            description = "Where to compute (default: ${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--out", paramLabel = "DIR", description = "Write objective, gradients and values as .npy files here.")
    Path out;

    @Override
    public Integer call() throws IOException {
        DType dt = switch (dtype) {
            case "float32" -> DType.FLOAT32;
            case "float64" -> DType.FLOAT64;
            default -> throw new GradscopeException("--dtype must be float32 or float64, not '" + dtype + "'");
        };
        Device dev = switch (device) {
            case "cpu" -> Device.CPU;
            case "cuda" -> Device.CUDA;
            default -> throw new GradscopeException("--device must be cpu or cuda, not '" + device + "'");
        };
        if (dev == Device.CUDA) {
            Backends.cuda(); // "CUDA unavailable: REASON" when there is no GPU, driver or JCuda natives
        }
        OutputFolder folder = out == null ? null : OutputFolder.check(out);
        Program p = Program.load(program);
        List<Leaf> leaves = p.check(dt);
        Map<String, Tensor> given = readInputs(p, leaves, dt);
        ProgramRun run = p.run(new RunOptions(dt, seed, given, dev));
        System.out.println(format(run.objective().item(), dt));
        if (folder != null) {
            String replaced = folder.write(dir -> write(run, dir));
            if (replaced != null) {
                System.err.println("gradscope: " + replaced);
            }
        }
        return 0;
    }

    static String format(double v, DType dt) {
        return dt == DType.FLOAT32 ? Float.toString((float) v) : Double.toString(v);
    }

    private Map<String, Tensor> readInputs(Program p, List<Leaf> leaves, DType dt) {
        Map<String, Leaf> byName = new LinkedHashMap<>();
        leaves.forEach(l -> byName.put(l.name(), l));
        Map<String, Tensor> given = new LinkedHashMap<>();
        for (String spec : inputs) {
            int eq = spec.indexOf('=');
            if (eq <= 0 || eq == spec.length() - 1) {
                throw new GradscopeException("--input " + spec + ": expected NAME=FILE.npy");
            }
            String name = spec.substring(0, eq);
            Leaf leaf = byName.get(name);
            Pos assigned = p.assignedNames().get(name);
            if (leaf == null && assigned != null) {
                throw new GradscopeException("--input " + spec + ": '" + name + "' is computed by the program (line "
                        + assigned.line() + "), not a leaf; only input(...), param(...) and labels(...) can be given");
            }
            if (leaf == null) {
                throw new GradscopeException("--input " + spec + ": the program has no leaf named '" + name + "'"
                        + Names.didYouMean(name, byName.keySet()));
            }
            if (given.containsKey(name)) {
                throw new GradscopeException("--input " + spec + ": '" + name + "' is given twice");
            }
            try {
                // Floats are read straight into the run's dtype: one copy, however large the file.
                Path file;
                try {
                    file = Path.of(spec.substring(eq + 1));
                } catch (java.nio.file.InvalidPathException e) {
                    throw new GradscopeException(spec.substring(eq + 1) + ": not a valid path (" + e.getReason() + ")");
                }
                Tensor t = Npy.read(file, dt);
                given.put(name, leaf.accept(t, dt));
            } catch (GradscopeException e) {
                String msg = e.getMessage();
                String file = spec.substring(eq + 1);
                if (msg.startsWith(file + ": ")) {
                    msg = msg.substring(file.length() + 2);
                }
                throw new GradscopeException("--input " + spec + ": " + msg);
            }
        }
        return given;
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
