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

    @Option(names = "--dropout", paramLabel = "refuse|seeded", defaultValue = "refuse",
            description = "A Dropout in training mode: refuse it (default; PyTorch's mask is random, so no run can match it), or run "
                    + "it as the program's seeded dropout (each node its own seed; the masks are Gradscope's, not PyTorch's).")
    String dropout;

    /** The start of a file as text (its header line is all that is read of it); bytes that are not UTF-8 become U+FFFD. */
    private static String firstBytes(Path file) throws java.io.IOException {
        try (var in = java.nio.file.Files.newInputStream(file)) {
            return new String(in.readNBytes(4096), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /**
     * Imports into a folder of its own, then puts the result in {@code --out}'s place as {@code run
     * --out} does: DIR must be new, empty or an earlier import's (model.grad, names.json, params/),
     * so a hand-written program there is never overwritten, and an earlier import is replaced whole
     * (no stale parameter files), said on stderr.
     */
    @Override
    public Integer call() throws java.io.IOException {
        String problem = io.gradscope.engine.InputFiles.problem(model);
        if (problem != null) {
            throw new GradscopeException("cannot read " + model + " (" + problem + ")");
        }
        OutputFolder folder = OutputFolder.check(out, OutputFolder.Layout.IMPORT);
        Path earlier = out.resolve("model.grad");
        if (java.nio.file.Files.isRegularFile(earlier) && OnnxImport.importedFrom(firstBytes(earlier)).isEmpty()) {
            throw new GradscopeException("--out " + out + ": its model.grad was not written by gradscope import (it would be "
                    + "replaced); give a new or empty folder, or one an earlier import wrote");
        }
        Path staging = java.nio.file.Files.createTempDirectory("gradscope-import-");
        try {
            OnnxImport.Result r = OnnxImport.run(model, staging, new OnnxImport.Options(loss, dims, false, 0, dropout));
            String replaced = folder.write(dir -> {
                try (var files = java.nio.file.Files.walk(staging)) {
                    for (Path p : (Iterable<Path>) files::iterator) {
                        Path to = dir.resolve(staging.relativize(p).toString());
                        if (java.nio.file.Files.isDirectory(p)) {
                            java.nio.file.Files.createDirectories(to);
                        } else {
                            java.nio.file.Files.copy(p, to);
                        }
                    }
                }
            });
            Path program = out.resolve(r.program().getFileName().toString());
            long params = r.initializers().values().stream().filter(Objects::nonNull).count();
            System.out.println("imported " + model.getFileName() + " (opset " + r.opset() + ", " + r.nodes() + " nodes, " + params
                    + " initializers used) to " + program);
            if (r.seededDropouts() > 0) {
                System.out.println("note: " + r.seededDropouts() + " Dropout node" + (r.seededDropouts() == 1 ? "" : "s")
                        + " in training mode run as seeded dropout: the masks are Gradscope's, not PyTorch's");
            }
            System.out.println("run it: gradscope run " + program);
            OutputFolder.report(replaced);
            return 0;
        } finally {
            OutputFolder.deleteTree(staging);
        }
    }
}
