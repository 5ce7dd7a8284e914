package io.gradscope.app.viewmodel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The files opened or saved lately, newest first, each once: a path is kept in one spelling (absolute,
 * normalized, links resolved), so "x.grad", "./x.grad" and "/home/me/x.grad" are one entry. Stored
 * as lines of text wherever the app keeps them (user preferences; a string in tests).
 */
public final class RecentFiles {
    public static final int MAX = 8;
    private final Supplier<String> load;
    private final Consumer<String> store;

    public RecentFiles(Supplier<String> load, Consumer<String> store) {
        this.load = load;
        this.store = store;
    }

    /** The same list, never written: a one-shot window (a screenshot) shows it but adds nothing to it. */
    public RecentFiles readOnly() {
        return new RecentFiles(load, s -> { });
    }

    /** The one spelling of a path. */
    public static Path canonical(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        try {
            return Files.exists(abs) ? abs.toRealPath() : abs;
        } catch (IOException | SecurityException e) {
            return abs;
        }
    }

    /** The files that still exist, newest first, each once. */
    public List<Path> list() {
        Set<Path> out = new LinkedHashSet<>();
        for (String s : load.get().split("\n")) {
            if (!s.isBlank()) {
                Path p = canonical(Path.of(s));
                if (Files.exists(p)) {
                    out.add(p);
                }
            }
        }
        return new ArrayList<>(out).subList(0, Math.min(MAX, out.size()));
    }

    /** Puts a file at the top. */
    public void add(Path p) {
        List<Path> list = new ArrayList<>(list());
        Path c = canonical(p);
        list.remove(c);
        list.add(0, c);
        List<String> lines = new ArrayList<>();
        for (Path q : list.subList(0, Math.min(MAX, list.size()))) {
            lines.add(q.toString());
        }
        store.accept(String.join("\n", lines));
    }
}
