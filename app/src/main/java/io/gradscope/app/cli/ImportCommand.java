package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.onnx.OnnxImport;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope import MODEL.onnx --out DIR}: an ONNX model as a program with its weights. */
@Command(name = "import", mixinStandardHelpOptions = true,
        description = {"Imports an ONNX model (as torch.onnx.export writes it, opset 13-17) as a program: DIR/model.grad, "
                + "the initializers' values under DIR/params/ and DIR/names.json (ONNX names to program names). "
                + "'gradscope run DIR/model.grad' then runs it with the model's weights."},
        footer = {"", "The objective is the chosen loss of the model's first output. Unsupported operators are listed, each "
                + "with its node names and count, in one message, and nothing is written.",
            "", "Exit status: 0 success; 2 a file that is not a model, an unsupported operator or a bad option, reported as "
                + "one line; 1 an internal failure."})
public final class ImportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "MODEL.onnx", description = "The ONNX model.")
    Path model;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "Where to write model.grad, params/ and names.json.")
    Path out;

    @Option(names = "--loss", paramLabel = "sum|mean|mse|cross_entropy", defaultValue = "sum",
            description = "The objective made of the first output (default: ${DEFAULT-VALUE}); mse and cross_entropy add a "
                    + "target leaf.")
    String loss;

    @Option(names = "--dim", paramLabel = "NAME=SIZE", description = "The size of a symbolic input dimension (e.g. batch=1). "
            + "Repeatable.")
    Map<String, String> dims = new LinkedHashMap<>();

    @Override
    public Integer call() {
        OnnxImport.Result r = run(model, out, loss, dims);
        long params = r.initializers().values().stream().filter(Objects::nonNull).count();
        System.out.println("imported " + model.getFileName() + " (opset " + r.opset() + ", " + r.nodes() + " nodes, " + params
                + " initializers used) to " + r.program());
        System.out.println("run it: gradscope run " + r.program());
        return 0;
    }

    /** Imports, with the command line's checks of the model path. */
    static OnnxImport.Result run(Path model, Path out, String loss, Map<String, String> dims) {
        if (!java.nio.file.Files.isRegularFile(model)) {
            throw new GradscopeException("cannot read " + model + " (no such file)");
        }
        return OnnxImport.run(model, out, new OnnxImport.Options(loss, dims));
    }
}
