package io.gradscope.app.cli;

import io.gradscope.app.AppLauncher;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gradscope open FILE.grad}: the desktop app on a file. */
@Command(name = "open", mixinStandardHelpOptions = true, description = "Opens a .grad program in the desktop app, runs it, "
        + "and shows its graph ready to step (→ ← Space Home End).")
public final class OpenCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PROGRAM.grad")
    Path file;

    @Option(names = "--screenshot", paramLabel = "PNG", hidden = true)
    Path screenshot;

    @Override
    public Integer call() {
        return AppLauncher.launch(file, screenshot);
    }
}
