package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.program.ProgramException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The top-level {@code gradscope} command. */
@Command(name = "gradscope", mixinStandardHelpOptions = true, version = "gradscope 0.1.0",
        description = {
            "A debugger for automatic differentiation: see the computation graph and step the backward sweep.",
            "",
            "Programs are .grad files (a Python subset); PyTorch is the reference for every value and gradient.",
            "",
            "Without a command, opens the desktop app on the chain from the backpropagation post."},
        subcommands = {OpenCommand.class, RunCommand.class, JvpCommand.class, HvpCommand.class, JacobianCommand.class,
            ColorCommand.class, BenchCommand.class,
            BenchUiCommand.class},
        footer = {"", "Exit status: 0 success, 2 a mistake in a program, option or file, 1 an internal failure."})
public final class GradscopeCommand implements Callable<Integer> {

    @picocli.CommandLine.Option(names = "--screenshot", paramLabel = "PNG", hidden = true,
            description = "Write the window to PNG once the first run is shown, then quit.")
    java.nio.file.Path screenshot;

    /** Without a command: the desktop app on the default program. */
    @Override
    public Integer call() {
        return io.gradscope.app.AppLauncher.launch(null, screenshot);
    }

    /** Runs the command line and returns the exit status; user mistakes are one line, never a trace. */
    public static int execute(String... args) {
        CommandLine cl = new CommandLine(new GradscopeCommand());
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof ProgramException) {
                commandLine.getErr().println(ex.getMessage());
                return 2;
            }
            if (ex instanceof GradscopeException) {
                commandLine.getErr().println("error: " + ex.getMessage());
                return 2;
            }
            if (ex instanceof java.io.IOException) {
                commandLine.getErr().println("error: " + ex.getMessage());
                return 2;
            }
            commandLine.getErr().println("internal error: " + ex);
            return 1;
        });
        cl.setParameterExceptionHandler((ex, a) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            err.println("error: " + ex.getMessage() + " (see 'gradscope --help')");
            return 2;
        });
        return cl.execute(args);
    }
}
