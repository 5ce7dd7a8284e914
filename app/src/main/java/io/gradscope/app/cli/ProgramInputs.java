package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.lang.Names;
import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.Backends;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options every command that runs a program takes ({@code --input}, {@code --seed},
 * {@code --dtype}, {@code --device}), and the run options they make. Used as a picocli mixin.
 */
public final class ProgramInputs {
    @Option(names = "--input", paramLabel = "NAME=FILE.npy",
            description = "The value of leaf NAME from a .npy file: floats (<f4, <f8) for input/param, integers (<i8, <i4) "
                    + "for labels; the shape must equal the declared one. Repeatable.")
    List<String> inputs = new ArrayList<>();

    @Option(names = "--seed", paramLabel = "N", defaultValue = "0",
            description = "Seed for the leaves not given with --input (default: ${DEFAULT-VALUE}).")
    long seed;

    // One default for the command line and the app: float64 suits a debugger (gradients to compare
    // with PyTorch's float64 references); float32 is there for speed on request.
    @Option(names = "--dtype", paramLabel = "float32|float64", defaultValue = "float64",
            description = "Float type of the computation (default: ${DEFAULT-VALUE}, as in the app; float32 for speed).")
    String dtype;

    @Option(names = "--device", paramLabel = "cpu|cuda", defaultValue = "cpu",
            description = "Where to compute (default: ${DEFAULT-VALUE}).")
    String device;

    /** The float type asked for. */
    DType dtype() {
        return switch (dtype) {
            case "float32" -> DType.FLOAT32;
            case "float64" -> DType.FLOAT64;
            default -> throw new GradscopeException("--dtype must be float32 or float64, not '" + dtype + "'");
        };
    }

    /** The device asked for; CUDA is checked to be usable. */
    Device device() {
        Device dev = switch (device) {
            case "cpu" -> Device.CPU;
            case "cuda" -> Device.CUDA;
            default -> throw new GradscopeException("--device must be cpu or cuda, not '" + device + "'");
        };
        if (dev == Device.CUDA) {
            Backends.cuda(); // "CUDA unavailable: REASON" when there is no GPU, driver or JCuda natives
        }
        return dev;
    }

    /** Checks the program and reads the --input files: the options for running it. */
    RunOptions options(Program p) {
        DType dt = dtype();
        Device dev = device();
        List<Leaf> leaves = p.check(dt);
        return new RunOptions(dt, seed, readInputs(p, leaves, dt), dev);
    }

    /** The leaf a derivative is taken with respect to, named by {@code --wrt}. */
    static Leaf wrt(Program p, RunOptions options, String name, boolean needsGradient) {
        try {
            return io.gradscope.engine.run.Directional.leaf(p, options, name, needsGradient);
        } catch (GradscopeException e) {
            throw new GradscopeException("--wrt " + name + ": " + e.getMessage());
        }
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
}
