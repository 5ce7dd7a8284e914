package io.gradscope.app;

import io.gradscope.app.cli.GradscopeCommand;
import picocli.CommandLine;

/**
 * The plain {@code main} behind {@code ./gradscope}: a command-line subcommand, or (later) the
 * desktop app. A plain class, so JavaFX on the class path never blocks start-up.
 */
public final class Launcher {
    private Launcher() {
    }

    public static void main(String[] args) {
        io.gradscope.app.launch.StartTimes.mark("main");
        System.exit(GradscopeCommand.execute(args));
    }
}
