package io.gradscope.app.launch;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * When the window's start reached each of its stages: {@code main} (the launcher's main entered),
 * {@code launch} (the command line read, JavaFX asked to start), {@code fx_start} (JavaFX up, the application's start entered), {@code main_window} (the window's
 * views built), {@code shown} (scene set and the stage shown) and {@code first_frame} (the first
 * frame of the window rendered). Read by {@code bench-ui --open} (the bench module's StartParts); a mark
 * costs one clock read.
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
     * The CPU times (ns) when {@code stage} was marked: the marking thread's and the whole process's
     * (-1 where the JVM cannot say); null unless {@link #measureCpu} was called before the mark.
     */
    public static synchronized long[] cpuAt(String stage) {
        long[] t = CPU.get(stage);
        return t == null ? null : t.clone();
    }

    /** The time of {@code stage} on {@link System#nanoTime}'s clock, or -1 when not reached. */
    public static synchronized long at(String stage) {
        return MARKS.getOrDefault(stage, -1L);
    }

    /** A wall-clock time (ms since the epoch, e.g. the JVM's start) on {@link System#nanoTime}'s clock. */
    public static long nanoOf(long epochMillis) {
        return NANO_ZERO + (epochMillis - MILLI_ZERO) * 1_000_000L;
    }
}
