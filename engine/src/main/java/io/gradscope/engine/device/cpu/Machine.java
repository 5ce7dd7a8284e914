package io.gradscope.engine.device.cpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the kernel choices depend on: the CPU's model and flags, the cores the JVM may use, the
 * OpenBLAS settings and library, Java's version. Equal facts, equal choices: {@link TuneCache}
 * keys its file by them.
 */
record Machine(String cpu, String flags, int cores, String openblasCoretype, String openblasThreads, String blas,
               String java) {

    /** The facts of the machine this JVM runs on (Linux's /proc where present, else what Java says). */
    static Machine here() {
        List<String> info = lines(Path.of("/proc/cpuinfo"));
        return new Machine(field(info, "model name", System.getProperty("os.arch")), field(info, "flags", ""),
                CpuThreads.THREADS, env("OPENBLAS_CORETYPE"), env("OPENBLAS_NUM_THREADS"), blasLibrary(),
                Runtime.version().toString());
    }

    /** The lines that key the cache: everything but the flags (the model names them). */
    Map<String, String> key() {
        Map<String, String> k = new LinkedHashMap<>();
        k.put("cpu", cpu);
        k.put("cores", String.valueOf(cores));
        k.put("openblas-coretype", openblasCoretype);
        k.put("openblas-num-threads", openblasThreads);
        k.put("blas", blas);
        k.put("java", java);
        return k;
    }

    /** For bench's JSON: the key and the CPU's flags. */
    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>(key());
        m.put("flags", flags);
        return m;
    }

    private static String env(String name) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? "(unset)" : v.trim();
    }

    private static String field(List<String> info, String name, String otherwise) {
        for (String line : info) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equals(name)) {
                return line.substring(colon + 1).trim();
            }
        }
        return otherwise;
    }

    /**
     * The system BLAS this process mapped (its real path and size: another build or version is
     * another library), or "none"; read from /proc/self/maps after NativeGemm has loaded it.
     */
    private static String blasLibrary() {
        if (!NativeGemm.loaded()) {
            return "none";
        }
        for (String line : lines(Path.of("/proc/self/maps"))) {
            int slash = line.indexOf('/');
            if (slash < 0) {
                continue;
            }
            String file = line.substring(slash);
            String name = Path.of(file).getFileName().toString();
            if (name.startsWith("libblas") || name.startsWith("libopenblas")) {
                try {
                    Path real = Path.of(file).toRealPath();
                    return real + " (" + Files.size(real) + " bytes)";
                } catch (IOException | RuntimeException e) {
                    return file;
                }
            }
        }
        return "loaded (path unknown)";
    }

    private static List<String> lines(Path p) {
        try (Stream<String> s = Files.lines(p)) {
            return s.toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
