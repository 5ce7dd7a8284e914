package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.lang.ProgramException;
import java.io.PrintWriter;
import java.util.List;
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
        subcommands = {OpenCommand.class, RunCommand.class, ImportCommand.class, JvpCommand.class, HvpCommand.class,
            GradcheckCommand.class, DiffCommand.class, JacobianCommand.class, ColorCommand.class, MemoryCommand.class},
        footer = {"", "Memory: the launcher takes --max-memory SIZE (e.g. ./gradscope --max-memory 16g run ...) to raise the "
                + "Java heap's limit, and passes JAVA_OPTS to java (e.g. JAVA_OPTS=-Xmx16g).",
            "", "Exit status: 0 success, 2 a mistake in a program, option or file, 1 an internal failure."})
public final class GradscopeCommand implements Callable<Integer> {

    @picocli.CommandLine.Option(names = "--screenshot", paramLabel = "PNG",
            description = "Write the window to PNG once the first run is shown, then quit (see 'gradscope open --help'); "
                    + "an existing PNG is replaced, any other file refused.")
    java.nio.file.Path screenshot;

    /** Without a command: the desktop app on the default program. */
    @Override
    public Integer call() {
        return io.gradscope.app.launch.AppLauncher.launch(null, screenshot);
    }

    /** Runs the command line and returns the exit status; user mistakes are one line, never a trace. */
    public static int execute(String... args) {
        Callable<Integer> plain = PlainWindowCommand.of(args);
        List<MoreCommands> more = plain != null ? List.of() : MoreCommands.found();
        for (int i = 0; i < more.size() && plain == null; i++) {
            plain = more.get(i).plain(args);
        }
        if (plain != null) {
            // The window's start does not wait for the model of every subcommand (PlainWindowCommand).
            PrintWriter err = new PrintWriter(System.err, true);
            try {
                return plain.call();
            } catch (Exception | OutOfMemoryError | StackOverflowError e) {
                return report(e, err);
            }
        }
        CommandLine cl = commandLine(more);
        SynopsisWrap.install(cl);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> report(ex, commandLine.getErr()));
        cl.setParameterExceptionHandler((ex, a) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            err.println("error: " + oneLine(UsageErrors.message(ex)));
            return 2;
        });
        try {
            return cl.execute(args);
        } catch (OutOfMemoryError | StackOverflowError e) {
            // Errors are not Exceptions: picocli lets them through its handler.
            return report(e, cl.getErr());
        } finally {
            Interrupt.finished();
        }
    }

    /** The command line: gradscope's commands, then those other modules add ({@link MoreCommands}: bench, bench-ui). */
    public static CommandLine commandLine() {
        return commandLine(MoreCommands.found());
    }

    private static CommandLine commandLine(List<MoreCommands> more) {
        CommandLine cl = new CommandLine(new GradscopeCommand());
        for (MoreCommands m : more) {
            for (Object command : m.commands()) {
                cl.addSubcommand(command);
            }
        }
        return cl;
    }

    /**
     * Prints one line for a failure and returns the exit status: 2 for what a user can fix (a program,
     * an option, a file, too little memory), 1 for an internal failure.
     */
    static int report(Throwable ex, PrintWriter err) {
        if (ex instanceof CommandLine.ExecutionException && ex.getCause() != null) {
            ex = ex.getCause();
        }
        if (Interrupt.requested()) {
            return Interrupt.STATUS; // stopped by Ctrl+C: its one line is the interrupt hook's
        }
        if (ex instanceof ProgramException) {
            err.println(oneLine(ex.getMessage()));
            return 2;
        }
        if (ex instanceof GradscopeException) {
            err.println("error: " + oneLine(ex.getMessage()));
            return 2;
        }
        if (ex instanceof java.nio.file.FileSystemException f) {
            err.println("error: " + oneLine((f.getFile() != null ? f.getFile() + ": " : "")
                    + io.gradscope.engine.InputFiles.reason(f)
                    + (f.getOtherFile() != null ? " (" + f.getOtherFile() + ")" : "")));
            return 2;
        }
        if (ex instanceof java.io.IOException) {
            err.println("error: " + oneLine(ex.getMessage()));
            return 2;
        }
        if (ex instanceof OutOfMemoryError) {
            err.println("error: out of memory (" + io.gradscope.engine.alloc.HeapLimit.hint() + ")");
            err.flush();
            return 2;
        }
        if (ex instanceof StackOverflowError) {
            err.println("error: the program is nested too deeply to run (the Java stack overflowed)");
            err.flush();
            return 2;
        }
        err.println("internal error: " + ex);
        return 1;
    }

    /** A message as one line: a line break or another control character it quotes is escaped (GradscopeException.oneLine). */
    static String oneLine(String message) {
        return GradscopeException.oneLine(message);
    }
}
