package io.gradscope.app.cli;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.InputFiles;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The folder of {@code --out DIR}, checked before the run and written so that nothing is lost: the
 * results go into a temporary folder beside DIR, which replaces DIR only when complete. DIR must be
 * new, empty, or hold an earlier run's results of the same command (for {@code run}: objective.npy,
 * grad/*.npy, value/*.npy) and nothing else; anything else in it is refused before the run, untouched.
 */
final class OutputFolder {
    /** What a command writes: .npy files at the top, and folders of .npy files. */
    record Layout(Set<String> files, Set<String> folders) {
        static final Layout RUN = new Layout(Set.of("objective.npy"), Set.of("grad", "value"));
        static final Layout JVP = new Layout(Set.of("jvp.npy"), Set.of("tangent"));
        static final Layout HVP = new Layout(Set.of("hvp.npy"), Set.of());
        static final Layout IMPORT = new Layout(Set.of("model.grad", "names.json"), Set.of("params"));
    }

    private final String given;
    private final Path target;

    private OutputFolder(String given, Path target) {
        this.given = given;
        this.target = target;
    }

    /** Checks {@code run --out DIR} before anything runs. */
    static OutputFolder check(Path dir) {
        return check(dir, Layout.RUN);
    }

    /** Checks {@code --out DIR} of a command that writes {@code layout}, before anything runs. */
    static OutputFolder check(Path dir, Layout layout) {
        String given = dir.toString();
        if (given.isEmpty()) {
            throw new GradscopeException("--out: the path is empty; name the folder for the results");
        }
        Path target = dir.toAbsolutePath().normalize();
        try {
            if (Files.exists(target)) {
                target = target.toRealPath();
                if (!Files.isDirectory(target)) {
                    throw refuse(given, "is a file, not a folder");
                }
                String foreign = firstForeign(target, layout);
                if (foreign != null) {
                    throw refuse(given, foreign + "; give a new or empty folder, or one an earlier run wrote");
                }
                if (!Files.isWritable(target)) {
                    throw refuse(given, "permission denied");
                }
            }
        } catch (IOException e) {
            throw refuse(given, InputFiles.reason(e));
        }
        Path parent = target.getParent();
        if (parent == null) {
            throw refuse(given, "the root folder cannot hold the results");
        }
        Path existing = parent;
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        String said = existing == null ? "its folder" : shown(existing, dir);
        if (existing == null || !Files.isDirectory(existing)) {
            throw refuse(given, (existing == null ? said : "'" + said + "'") + " is a file, not a folder");
        }
        if (!Files.isWritable(existing)) {
            throw refuse(given, "permission denied to create it in " + said);
        }
        // A real probe (permissions alone say nothing about /proc, a read-only mount, or root).
        try {
            Files.delete(Files.createTempDirectory(existing, ".gradscope-probe-"));
        } catch (IOException e) {
            throw refuse(given, "cannot create a folder in " + said + " (" + InputFiles.reason(e) + ")");
        }
        return new OutputFolder(given, target);
    }

    /** A folder above {@code dir} as the user would write it: relative to the current folder when {@code dir} was. */
    private static String shown(Path folder, Path dir) {
        Path here = Path.of("").toAbsolutePath();
        if (dir.isAbsolute() || !folder.startsWith(here)) {
            return folder.toString();
        }
        String rel = here.relativize(folder).toString();
        return rel.isEmpty() ? "." : rel;
    }

    private static GradscopeException refuse(String given, String why) {
        return new GradscopeException("--out " + given + ": " + why);
    }

    /** What in {@code dir} an earlier run did not write, in words; null when there is nothing else. */
    private static String firstForeign(Path dir, Layout layout) throws IOException {
        try (Stream<Path> top = Files.list(dir)) {
            for (Path p : top.sorted().toList()) {
                String name = p.getFileName().toString();
                boolean folder = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
                if (layout.files().contains(name) && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                if (layout.folders().contains(name) && folder) {
                    try (Stream<Path> inner = Files.list(p)) {
                        for (Path q : inner.sorted().toList()) {
                            if (!q.getFileName().toString().endsWith(".npy") || !Files.isRegularFile(q, LinkOption.NOFOLLOW_LINKS)) {
                                return "it holds '" + name + "/" + q.getFileName() + "', which an earlier run did not write";
                            }
                        }
                    }
                    continue;
                }
                if (layout.folders().contains(name) || layout.files().contains(name)) {
                    return "'" + name + "' in it is a " + (folder ? "folder" : "file") + ", where an earlier run writes a "
                            + (folder ? "file" : "folder");
                }
                return "it holds '" + name + "', which an earlier run did not write";
            }
        }
        return null;
    }

    /** Says on stderr what a write replaced, if anything. */
    static void report(String replaced) {
        if (replaced != null) {
            System.err.println("gradscope: " + replaced);
        }
    }

    /** Writes the results into a folder. */
    @FunctionalInterface
    interface Writer {
        void write(Path dir) throws IOException;
    }

    /**
     * Writes through {@code writer} into a new folder beside the target, then puts it in the target's
     * place. Returns a note on what was replaced (null when the target was new or empty).
     */
    String write(Writer writer) throws IOException {
        String note = writeUnmarked(writer);
        wrote = true;
        return note;
    }

    private static volatile boolean wrote;

    /** Whether this process has put a complete output folder in place. */
    static boolean wroteAny() {
        return wrote;
    }

    private String writeUnmarked(Writer writer) throws IOException {
        Path parent = target.getParent();
        String name = target.getFileName().toString();
        Path fresh;
        try {
            Files.createDirectories(parent);
            fresh = Files.createTempDirectory(parent, "." + name + ".new-");
        } catch (IOException e) {
            throw new GradscopeException("--out " + given + ": cannot write the results (" + InputFiles.reason(e) + "); "
                    + (Files.exists(target) ? "it is unchanged" : "nothing was written"));
        }
        try {
            writer.write(fresh);
            Interrupt.check(); // Ctrl+C while writing: the target is left as it was
        } catch (IOException | RuntimeException e) {
            deleteTree(fresh);
            String why = e instanceof IOException io ? InputFiles.reason(io) : e.getMessage();
            throw new GradscopeException("--out " + given + ": cannot write the results (" + why + "); "
                    + (Files.exists(target) ? "it is unchanged" : "nothing was written"));
        }
        if (!Files.exists(target)) {
            try {
                Files.move(fresh, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                deleteTree(fresh);
                throw new GradscopeException("--out " + given + ": cannot create it (" + InputFiles.reason(e) + ")");
            }
            return null;
        }
        // The target stays (its permissions, a shell's working directory in it); its entries are swapped.
        Set<String> before = files(target);
        Path old = Files.createTempDirectory(parent, "." + name + ".old-");
        List<String> movedOut = new ArrayList<>();
        List<String> movedIn = new ArrayList<>();
        try {
            for (String e : entries(target)) {
                Files.move(target.resolve(e), old.resolve(e), StandardCopyOption.ATOMIC_MOVE);
                movedOut.add(e);
            }
            for (String e : entries(fresh)) {
                Files.move(fresh.resolve(e), target.resolve(e), StandardCopyOption.ATOMIC_MOVE);
                movedIn.add(e);
            }
        } catch (IOException e) {
            for (String m : movedIn) {
                deleteTree(target.resolve(m));
            }
            for (String m : movedOut) {
                Files.move(old.resolve(m), target.resolve(m), StandardCopyOption.ATOMIC_MOVE);
            }
            deleteTree(fresh);
            deleteTree(old);
            throw new GradscopeException("--out " + given + ": cannot replace its contents (" + InputFiles.reason(e)
                    + "); it is unchanged");
        }
        deleteTree(fresh);
        deleteTree(old);
        if (before.isEmpty()) {
            return null;
        }
        Set<String> gone = new TreeSet<>(before);
        gone.removeAll(files(target));
        return "replaced the earlier results in " + given + " (" + before.size() + " file" + (before.size() == 1 ? "" : "s")
                + (gone.isEmpty() ? ")" : "; not written by this run, so no longer there: " + String.join(", ", gone) + ")");
    }

    private static List<String> entries(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** The files under {@code dir}, as relative paths with '/'. */
    private static Set<String> files(Path dir) throws IOException {
        Set<String> out = new TreeSet<>();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.filter(Files::isRegularFile).toList()) {
                List<String> parts = new ArrayList<>();
                dir.relativize(p).forEach(x -> parts.add(x.toString()));
                out.add(String.join("/", parts));
            }
        }
        return out;
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                try {
                    Files.delete(d);
                } catch (DirectoryNotEmptyException ignored) {
                    // something appeared meanwhile: leave it
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
