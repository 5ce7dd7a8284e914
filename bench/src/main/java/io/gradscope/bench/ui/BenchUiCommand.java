package io.gradscope.bench.ui;

import io.gradscope.app.cli.AppDTypeOption;
import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.cli.PlainWindowCommand;
import io.gradscope.app.cli.RetainOption;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.InputFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gradscope bench-ui}: the open path a user waits for ({@code --open FILE}, or a generated
 * program with {@code --shape}), or the layout and first draw alone and one step of the sweep.
 */
@Command(name = "bench-ui", mixinStandardHelpOptions = true,
        description = {"Measures the app. With --open FILE (or --shape blocks|chain|wide|random and --nodes N, a generated program): "
            + "the time from opening the file to the first frame that shows its graph, as File → Open takes it, with its parts "
            + "(editor, parse, plan, run, trace, layout, show, first draw, and the waits between) and the peak heap; --runs opens it "
            + "that many times (the first is cold; medians printed). With --write FILE the generated program is written there "
            + "instead (no display needed).",
            "Without --open or --shape: layout plus the first draw of a generated residual chain of about --nodes vertices, folded "
            + "and unfolded (median of 5), and one sweep step with every node in view (median of 200).",
            "Prints one JSON object (ms). Needs a display: xvfb-run -a ./gradscope bench-ui --shape chain --nodes 10000"})
public final class BenchUiCommand implements Callable<Integer> {
    @Option(names = "--nodes", paramLabel = "N", description = "How many vertices the program has (default: ${DEFAULT-VALUE}).")
    int nodes = 2000;

    @Option(names = "--open", paramLabel = "FILE", description = "Times opening this program (or ONNX model) as File → Open does.")
    Path open;

    @Option(names = "--shape", paramLabel = "blocks|chain|wide|random",
            description = "Generates a program of --nodes vertices: repeated residual blocks, a chain with nothing repeating, "
                    + "many parallel branches, or a random program (--seed) of mixed ops, nested groups and residual adds; then times opening it (or writes it, with --write).")
    String shape;

    @Option(names = "--seed", paramLabel = "N", description = "Which random program --shape random makes (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--write", paramLabel = "FILE", description = "Writes the generated program here and stops.")
    Path write;

    @Option(names = "--runs", paramLabel = "N", description = "How many times to open the file (default: ${DEFAULT-VALUE}).")
    int runs = 1;

    @picocli.CommandLine.Mixin
    RetainOption retain = new RetainOption();

    @picocli.CommandLine.Mixin
    AppDTypeOption dtype = new AppDTypeOption();

    /** {@code bench-ui --open FILE} with picocli's defaults, without its model ({@link PlainWindowCommand}); null for any other form. */
    public static BenchUiCommand plain(String... args) {
        if (args.length != 3 || !args[0].equals("bench-ui") || !args[1].equals("--open")) {
            return null;
        }
        Path file = PlainWindowCommand.plainPath(args[2]);
        if (file == null) {
            return null;
        }
        BenchUiCommand bench = new BenchUiCommand();
        bench.open = file;
        return bench;
    }

    @Override
    public Integer call() throws IOException {
        retain.applyToApp();
        dtype.applyToApp();
        if (nodes < 10 || nodes > 1_000_000) {
            throw new GradscopeException("--nodes must be between 10 and 1000000, not " + nodes);
        }
        if (runs < 1 || runs > 100) {
            throw new GradscopeException("--runs must be between 1 and 100, not " + runs);
        }
        if (open != null && shape != null) {
            throw new GradscopeException("--open and --shape do not go together: open a file, or generate one");
        }
        if (write != null && shape == null) {
            throw new GradscopeException("--write needs --shape: it writes a generated program");
        }
        if (shape != null) {
            String text = BenchUiPrograms.program(BenchUiPrograms.Shape.parse(shape), nodes, seed);
            Path to = write != null ? write : Files.createTempFile("bench-" + shape.toLowerCase(java.util.Locale.ROOT) + "-", ".grad");
            try {
                Files.writeString(to, text, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new GradscopeException("cannot write " + to + ": " + InputFiles.reason(e));
            }
            if (write != null) {
                System.out.println("wrote " + to + " (" + text.lines().count() + " lines, about " + nodes + " vertices)");
                return 0;
            }
            to.toFile().deleteOnExit();
            return BenchUiOpen.launch(to, runs);
        }
        if (open != null) {
            String problem = InputFiles.problem(open);
            if (problem != null) {
                throw new GradscopeException("cannot read " + open + ": " + problem);
            }
            return BenchUiOpen.launch(open, runs);
        }
        return UiBench.launch(nodes);
    }
}
