package io.gradscope.app.cli;

import io.gradscope.app.UiBench;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code gradscope bench-ui}: layout + first draw of a 2,000-node program, and one step of the sweep. */
@Command(name = "bench-ui", mixinStandardHelpOptions = true,
        description = {"Measures the app on a generated 2,000-node program: ELK layout plus the first draw (median of 5), "
            + "and one sweep step (highlight + inspector update + redraw, median of 200). Prints one JSON object (ms).",
            "Needs a display: xvfb-run -a ./gradscope bench-ui"})
public final class BenchUiCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return UiBench.launch();
    }
}
