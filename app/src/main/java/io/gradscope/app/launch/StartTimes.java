package io.gradscope.app.launch;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * When the window's start reached each of its stages: {@code main} (the launcher's main entered),
 * {@code launch} (the command line read, JavaFX asked to start), {@code fx_start} (JavaFX up, the application's start entered), {@code main_window} (the window's
 * views built), {@code shown} (scene set and the stage shown) and {@code first_frame} (the first
 * frame of the window rendered). Read by {@code bench-ui --open}; a mark costs one clock read.
 */
public final class StartTimes {
    private static final Map<String, Long> MARKS = new LinkedHashMap<>();
    /** The CPU time of the thread that marked each stage, and of the whole process, when {@link #measureCpu} asked. */
    private static final Map<String, long[]> CPU = new LinkedHashMap<>();
    private static volatile boolean cpu;
    /** The same instant on both clocks, to place the JVM's start (wall clock) among the marks. */
    private static final long NANO_ZERO = System.nanoTime();
    private static final long MILLI_ZERO = System.currentTimeMillis();

    private StartTimes() {
    }

    /** Records that the start reached {@code stage} now (the first time only). */
    public static synchronized void mark(String stage) {
        if (MARKS.putIfAbsent(stage, System.nanoTime()) == null && cpu) {
            var os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            long process = os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
            CPU.put(stage, new long[] {java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime(), process});
        }
    }

    /**
     * Has the marks from now on read CPU times too (a benchmark: less noisy than the wall clock on a
     * busy machine, and it loads java.management, which the app's start does not need).
     */
    public static void measureCpu() {
        cpu = true;
    }

    /**
     * The UI thread's CPU time (ms) in each stage from {@code fx_start} on ({@code main_window},
     * {@code shown}, {@code first_frame}) and the whole process's CPU time to the first frame
     * ({@code process}, all threads: JIT, GC, the loader); empty unless {@link #measureCpu} was called.
     */
    public static synchronized Map<String, Double> cpuParts() {
        Map<String, Double> out = new LinkedHashMap<>();
        long[] before = CPU.get("fx_start");
        for (String stage : new String[] {"main_window", "shown", "first_frame"}) {
            long[] t = CPU.get(stage);
            if (before != null && t != null) {
                out.put(stage, ms(t[0] - before[0]));
                before = t;
            }
        }
        long[] last = CPU.get("first_frame");
        if (last != null && last[1] >= 0) {
            out.put("process", ms(last[1]));
        }
        return out;
    }

    /** The time of {@code stage} on {@link System#nanoTime}'s clock, or -1 when not reached. */
    public static synchronized long at(String stage) {
        return MARKS.getOrDefault(stage, -1L);
    }

    /** A wall-clock time (ms since the epoch, e.g. the JVM's start) on {@link System#nanoTime}'s clock. */
    public static long nanoOf(long epochMillis) {
        return NANO_ZERO + (epochMillis - MILLI_ZERO) * 1_000_000L;
    }

    /**
     * The parts of the start, in ms, each from the stage before: {@code jvm} (JVM start to main),
     * {@code launch}, {@code fx_start}, {@code main_window}, {@code shown}, {@code first_frame}, and {@code total}
     * (JVM start to the first frame); {@code jvmStartMillis} is the JVM's start on the wall clock.
     */
    public static synchronized Map<String, Double> parts(long jvmStartMillis) {
        Map<String, Double> out = new LinkedHashMap<>();
        long before = nanoOf(jvmStartMillis);
        long start = before;
        for (String stage : new String[] {"main", "launch", "fx_start", "main_window", "shown", "first_frame"}) {
            long t = at(stage);
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
