package io.gradscope.bench.ui;

import io.gradscope.app.launch.StartTimes;
import java.util.LinkedHashMap;
import java.util.Map;

/** The window's start in parts (ms), from the stages the app marks ({@link StartTimes}): what bench-ui --open prints. */
final class StartParts {
    private StartParts() {
    }

    /**
     * The UI thread's CPU time (ms) in each stage from {@code fx_start} on ({@code main_window},
     * {@code shown}, {@code first_frame}) and the whole process's CPU time to the first frame
     * ({@code process}, all threads: JIT, GC, the loader); empty unless {@link StartTimes#measureCpu} was called.
     */
    static Map<String, Double> cpu() {
        Map<String, Double> out = new LinkedHashMap<>();
        long[] before = StartTimes.cpuAt("fx_start");
        for (String stage : new String[] {"main_window", "shown", "first_frame"}) {
            long[] t = StartTimes.cpuAt(stage);
            if (before != null && t != null) {
                out.put(stage, ms(t[0] - before[0]));
                before = t;
            }
        }
        long[] last = StartTimes.cpuAt("first_frame");
        if (last != null && last[1] >= 0) {
            out.put("process", ms(last[1]));
        }
        return out;
    }

    /**
     * The parts of the start, in ms, each from the stage before: {@code jvm} (JVM start to main),
     * {@code launch}, {@code fx_start}, {@code main_window}, {@code shown}, {@code first_frame}, and {@code total}
     * (JVM start to the first frame); {@code jvmStartMillis} is the JVM's start on the wall clock.
     */
    static Map<String, Double> wall(long jvmStartMillis) {
        Map<String, Double> out = new LinkedHashMap<>();
        long before = StartTimes.nanoOf(jvmStartMillis);
        long start = before;
        for (String stage : new String[] {"main", "launch", "fx_start", "main_window", "shown", "first_frame"}) {
            long t = StartTimes.at(stage);
            if (t < 0) {
                continue;
            }
            out.put(stage.equals("main") ? "jvm" : stage, ms(t - before));
            before = t;
        }
        out.put("total", ms(before - start));
        return out;
    }

    private static double ms(long ns) {
        return Math.round(ns / 1e5) / 10.0;
    }
}
