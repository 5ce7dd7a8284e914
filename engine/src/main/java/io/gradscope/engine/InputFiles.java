package io.gradscope.engine;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What is wrong with a file a user named, in words: "no such file", "permission denied", "is a
 * directory", "not a regular file (a named pipe)". Files are checked before they are opened, because
 * opening a named pipe blocks until a writer comes and a device like {@code /dev/zero} never ends.
 *
 * <pre>{@code
 * String problem = InputFiles.problem(Path.of("x.npy"));   // null when it can be read
 * }</pre>
 */
public final class InputFiles {
    /** What is wrong with a file whose bytes are not UTF-8 text (a program, a pattern, a model opened as a program). */
    public static final String NOT_TEXT = "this is not text: bytes that are not UTF-8 (a binary file?)";

    private InputFiles() {
    }

    /**
     * Null when {@code file} is a regular file this process may read and its bytes are UTF-8 text;
     * else what is wrong with it ({@link #problem}, or {@link #NOT_TEXT}). Reads the file through once.
     */
    public static String textProblem(Path file) {
        String problem = problem(file);
        if (problem != null) {
            return problem;
        }
        var decoder = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        try (var in = new java.io.InputStreamReader(Files.newInputStream(file), decoder)) {
            char[] buf = new char[1 << 14];
            while (in.read(buf) >= 0) {
                // decoding is the check
            }
            return null;
        } catch (IOException e) {
            return reason(e);
        }
    }

    /** Null when {@code file} is a regular file this process may read; else what is wrong with it. */
    public static String problem(Path file) {
        if (file.toString().isEmpty()) {
            return "the path is empty";
        }
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (IOException e) {
            return reason(e);
        }
        if (a.isDirectory()) {
            return "is a directory";
        }
        if (!a.isRegularFile()) {
            return "not a regular file (" + kind(file) + "); only regular files are read";
        }
        if (!Files.isReadable(file)) {
            return "permission denied";
        }
        return null;
    }

    private static java.nio.file.Path folderOf(String file) {
        try {
            return file == null ? null : java.nio.file.Path.of(file).toAbsolutePath().getParent();
        } catch (java.nio.file.InvalidPathException e) {
            return null;
        }
    }

    /** An I/O failure in words, without the path it names (the caller says which file). */
    public static String reason(IOException e) {
        if (e instanceof java.nio.charset.CharacterCodingException) {
            return NOT_TEXT; // Java's own words: "Input length = 1"
        }
        if (e instanceof NoSuchFileException n) {
            // Writing into a folder that is not there is the folder's fault, not the file's.
            java.nio.file.Path folder = folderOf(n.getFile());
            return folder != null && !java.nio.file.Files.isDirectory(folder) ? "no such folder " + folder : "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NotDirectoryException) {
            return "a part of the path is not a directory";
        }
        if (e instanceof java.nio.file.FileAlreadyExistsException) {
            return "it already exists";
        }
        if (e instanceof java.nio.file.DirectoryNotEmptyException) {
            return "the folder is not empty";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            String r = f.getReason();
            return r.isEmpty() ? r : Character.toLowerCase(r.charAt(0)) + r.substring(1);
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** "a named pipe", "a character device", ... from the file's Unix mode where the platform has one. */
    private static String kind(Path file) {
        try {
            int type = (Integer) Files.getAttribute(file, "unix:mode") & 0170000;
            return switch (type) {
                case 0010000 -> "a named pipe";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0140000 -> "a socket";
                default -> "a special file";
            };
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return "a special file";
        }
    }
}
