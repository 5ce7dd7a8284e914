package io.gradscope.engine.device.cpu;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Properties;

/**
 * The kernel choices measured on a machine, in a small properties file of the user's cache folder
 * ({@code gradscope.cache.dir}, else GRADSCOPE_CACHE_DIR, else {@code $XDG_CACHE_HOME/gradscope},
 * else {@code ~/.cache/gradscope}), one file per {@link Machine#key}: the facts are written in it
 * too and checked on reading, so a file from other facts, or one that names a kernel no choice has,
 * is ignored (and measured again), never an error.
 */
final class TuneCache {
    /** Bumped when the candidates or the probe shapes change: older files are then ignored. */
    static final int FORMAT = 2;

    private final Path dir;
    private final Map<String, String> key;

    TuneCache(Path dir, Machine machine) {
        this.dir = dir;
        this.key = machine.key();
        this.key.put("format", String.valueOf(FORMAT));
    }

    /** The user's cache folder for Gradscope, as the class comment says. */
    static Path defaultDir() {
        String p = System.getProperty("gradscope.cache.dir");
        String e = System.getenv("GRADSCOPE_CACHE_DIR");
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (p != null && !p.isBlank()) {
            return Path.of(p);
        }
        if (e != null && !e.isBlank()) {
            return Path.of(e);
        }
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "gradscope");
        }
        return Path.of(System.getProperty("user.home"), ".cache", "gradscope");
    }

    /** This machine's file. */
    Path file() {
        return dir.resolve("kernels-" + hash() + ".properties");
    }

    /** The choices in this machine's file: every one, each a candidate of its own; else null. */
    Map<KernelChoice, String> load() {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file(), StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
        for (Map.Entry<String, String> k : key.entrySet()) {
            if (!k.getValue().equals(p.getProperty("machine." + k.getKey()))) {
                return null;
            }
        }
        Map<KernelChoice, String> picks = new EnumMap<>(KernelChoice.class);
        for (KernelChoice c : KernelChoice.values()) {
            String v = p.getProperty(c.key());
            if (v == null || !c.candidates.contains(v.trim())) {
                return null;
            }
            picks.put(c, v.trim());
        }
        return picks;
    }

    /**
     * Writes the choices and the times they were chosen by (each candidate's best, ms), whole or not
     * at all (a temporary file moved into place); false where the folder cannot be written.
     */
    boolean save(Map<KernelChoice, String> picks, Map<KernelChoice, Map<String, Double>> times) {
        Properties p = new Properties();
        key.forEach((k, v) -> p.setProperty("machine." + k, v));
        picks.forEach((c, v) -> p.setProperty(c.key(), v));
        times.forEach((c, t) -> p.setProperty("ms." + c.key(), t.toString()));
        try {
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "kernels-", ".tmp");
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                p.store(w, "Gradscope's kernel choices for this machine, by measurement; delete this file "
                        + "(or run gradscope bench --tune) to measure again");
            }
            Files.move(tmp, file(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private String hash() {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(key.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            return Integer.toHexString(key.hashCode());
        }
    }
}
