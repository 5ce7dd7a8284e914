package io.gradscope.bench.ui;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Each thread's CPU time so far, by name, from Linux's /proc/self/task (the JIT's compiler threads and
 * the collector's included, which Java's own thread bean does not list): where a benchmark's CPU went.
 * Threads of one kind ("C2 CompilerThre", "GC Thread#0", ...) are summed under their name without digits.
 */
final class ThreadsCpu {
    private ThreadsCpu() {
    }

    /** Milliseconds by thread kind, largest first; empty where /proc is not there. */
    static Map<String, Double> read() {
        Map<String, Double> sums = new TreeMap<>();
        double tick = 1000.0 / 100; // USER_HZ is 100 on Linux
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) {
                    continue;
                }
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                String name = stat.substring(open + 1, close).replaceAll("[0-9]+", "#");
                String[] rest = stat.substring(close + 2).split(" ");
                // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the name.
                double ms = (Long.parseLong(rest[11]) + Long.parseLong(rest[12])) * tick;
                sums.merge(name, ms, Double::sum);
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        Map<String, Double> out = new LinkedHashMap<>();
        sums.entrySet().stream().sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }
}
