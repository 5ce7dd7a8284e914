package io.gradscope.app.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * The window's commands in their plain forms, without options: {@code gradscope}, {@code gradscope
 * open FILE} and those another module adds ({@link MoreCommands#plain}: the bench module's
 * {@code gradscope bench-ui --open FILE}). They run as picocli would run them, without
 * first building its model of every subcommand (about 0.25 s of CPU, read from their annotations by
 * reflection, on the path to the window's first frame). Any other form, an option or a help request
 * included, goes through picocli.
 */
public final class PlainWindowCommand {
    private PlainWindowCommand() {
    }

    /**
     * The command {@code args} name in a plain form, with picocli's defaults; null for any other form
     * (the plain forms of other modules' commands are theirs: {@link MoreCommands#plain}).
     */
    static Callable<Integer> of(String... args) {
        if (args.length == 0) {
            return new GradscopeCommand();
        }
        if (args.length == 2 && args[0].equals("open")) {
            Path file = plainPath(args[1]);
            if (file == null) {
                return null;
            }
            OpenCommand open = new OpenCommand();
            open.file = file;
            open.loss = OpenCommand.DEFAULT_LOSS;
            return open;
        }
        return null;
    }

    /** A file's name that picocli would take as it is: not an option, not empty, a path; null for any other. */
    public static Path plainPath(String arg) {
        if (arg.isEmpty() || arg.startsWith("-") || arg.startsWith("@")) {
            return null;
        }
        try {
            return Path.of(arg);
        } catch (InvalidPathException e) {
            return null;
        }
    }
}
