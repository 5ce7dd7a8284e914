package io.gradscope.engine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A file a command is about to write ({@code color --out COLORS.npy}, {@code --screenshot PNG}),
 * checked before anything runs, so that a run never ends by destroying what the user had: it is
 * refused when it is one of the command's inputs, a folder, a pipe or a device (a write to one
 * blocks or fails at the end), an existing file of another kind (only a file of the kind written,
 * which the user clearly asked to replace, is replaced), or in a folder that cannot be written.
 */
public final class OutputFile {
    private final String option;
    private final Path file;

    private OutputFile(String option, Path file) {
        this.option = option;
        this.file = file;
    }

    /**
     * Checks {@code out}, given with {@code option}, as a file of {@code kind} (".npy") whose bytes
     * begin with {@code magic}; {@code inputs} are the files the command reads (null ones skipped).
     *
     * @throws GradscopeException {@code OPTION OUT: why}, one line
     */
    public static OutputFile check(String option, Path out, String kind, byte[] magic, Path... inputs) {
        String given = out.toString();
        if (given.isEmpty()) {
            throw new GradscopeException(option + ": the path is empty; name the " + kind + " file to write");
        }
        for (Path in : inputs) {
            if (in != null && same(in, out)) {
                throw refuse(option, given, "is the command's input " + in + "; writing it would replace it, so name another file");
            }
        }
        if (Files.isDirectory(out)) {
            throw refuse(option, given, "is a folder; name the " + kind + " file to write");
        }
        if (Files.exists(out)) {
            if (!Files.isRegularFile(out)) {
                String why = InputFiles.problem(out);
                throw refuse(option, given, (why != null && why.startsWith("not a regular file") ? why.replaceFirst(
                        "; only regular files are read$", "") : "not a regular file") + "; name a file to write");
            }
            if (!startsWith(out, magic)) {
                throw refuse(option, given, "it exists and is not a " + kind + " file; it is replaced only when it is one "
                        + "(an earlier output): remove it first, or name another file");
            }
            if (!Files.isWritable(out)) {
                throw refuse(option, given, "permission denied");
            }
        }
        // The folders as the user wrote them (the current folder, not its absolute path, for a relative one).
        Path existing = out.normalize().getParent();
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            existing = out.isAbsolute() ? out.getRoot() : Path.of(".");
        }
        if (!Files.isDirectory(existing)) {
            throw refuse(option, given, existing + " is a file, not a folder");
        }
        // A real probe: permissions alone say nothing about /proc, a read-only mount, or root.
        try {
            Files.delete(Files.createTempFile(existing, ".gradscope-probe-", ".tmp"));
        } catch (IOException e) {
            throw refuse(option, given, "cannot write in " + existing + " (" + InputFiles.reason(e) + ")");
        }
        return new OutputFile(option, out);
    }

    /** An error in writing the file at the end, as one line with its option and path. */
    public GradscopeException failed(IOException e) {
        return refuse(option, file.toString(), "cannot write it (" + InputFiles.reason(e) + ")");
    }

    public Path path() {
        return file;
    }

    private static GradscopeException refuse(String option, String given, String why) {
        return new GradscopeException(option + " " + given + ": " + why);
    }

    /** Whether two paths name one file: the same file where both exist, else the same absolute path. */
    private static boolean same(Path a, Path b) {
        try {
            if (Files.exists(a) && Files.exists(b)) {
                return Files.isSameFile(a, b);
            }
        } catch (IOException e) {
            // compared by name below
        }
        return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
    }

    /** Whether the file is empty or its bytes begin with {@code magic}. */
    private static boolean startsWith(Path file, byte[] magic) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(magic.length);
            return head.length == 0 || Arrays.equals(head, magic);
        } catch (IOException e) {
            return false;
        }
    }
}
