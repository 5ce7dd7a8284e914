package io.gradscope.app.cli;

import io.gradscope.app.AppLauncher;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope open FILE.grad} (or {@code MODEL.onnx}): the desktop app on a file. */
@Command(name = "open", mixinStandardHelpOptions = true, description = "Opens a .grad program in the desktop app, runs it, "
        + "and shows its graph ready to step (→ ← Space Home End). An ONNX model (MODEL.onnx) is imported first, into a "
        + "temporary folder, as 'gradscope import' does.")
public final class OpenCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROGRAM.grad|MODEL.onnx")
    Path file;

    @Option(names = "--loss", paramLabel = "sum|mean|mse|cross_entropy", defaultValue = "sum",
            description = "For a model: the objective made of its first output (default: ${DEFAULT-VALUE}).")
    String loss;

    @Option(names = "--dim", paramLabel = "NAME=SIZE", description = "For a model: the size of a symbolic input dimension.")
    java.util.Map<String, String> dims = new java.util.LinkedHashMap<>();

    @Option(names = "--screenshot", paramLabel = "PNG", hidden = true)
    Path screenshot;

    @Override
    public Integer call() throws java.io.IOException {
        Path program = file;
        if (file.getFileName() != null && file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".onnx")) {
            Path dir = java.nio.file.Files.createTempDirectory("gradscope-import-");
            deleteOnExit(dir);
            // NOTE: absolute paths to the parameter files: the app runs the editor's text knowing only the file's name.
            program = ImportCommand.run(file, dir, loss, dims, true).program();
        }
        return AppLauncher.launch(program, screenshot);
    }

    /** The import's temporary folder goes when the app closes. */
    private static void deleteOnExit(Path dir) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (var walk = java.nio.file.Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (java.io.IOException | RuntimeException e) {
                // a temporary folder left behind is harmless
            }
        }));
    }
}
