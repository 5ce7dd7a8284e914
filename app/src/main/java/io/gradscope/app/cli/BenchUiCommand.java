package io.gradscope.app.cli;

import io.gradscope.app.launch.UiBench;
import io.gradscope.engine.GradscopeException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gradscope bench-ui}: layout + first draw of a generated program, and one step of the sweep. */
@Command(name = "bench-ui", mixinStandardHelpOptions = true,
        description = {"Measures the app on a generated residual chain of about --nodes vertices: layout plus the first draw "
            + "as the app opens it (repeated blocks folded) and fully unfolded (median of 5, with the parts), and one sweep step "
            + "with every node in view (highlight + inspector update + redraw, median of 200). Prints one JSON object (ms).",
            "Needs a display: xvfb-run -a ./gradscope bench-ui --nodes 10000"})
public final class BenchUiCommand implements Callable<Integer> {
    @Option(names = "--nodes", paramLabel = "N", description = "How many vertices the program has (default: ${DEFAULT-VALUE}).")
    int nodes = 2000;

    @Override
    public Integer call() {
        if (nodes < 10 || nodes > 1_000_000) {
            throw new GradscopeException("--nodes must be between 10 and 1000000, not " + nodes);
        }
        return UiBench.launch(nodes);
    }
}
