package io.gradscope.bench.tools;

import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * A bench model's training step (as scripts/bench/step_breakdown.sh runs it) under two settings of
 * a system property in turns, step by step in one JVM, so that the machine's load falls on both alike:
 * the median ms of each and the median of the pairs' ratios. -Dprop=NAME (default gradscope.conv),
 * -Dmodes=A,B (default im2col,auto); e.g. -Dprop=gradscope.windows -Dmodes=plain,fast. Also the
 * process's CPU time per step (all its threads: the pool's, the collector's), which a loaded
 * machine moves less than the wall time (a step waiting for a core costs no CPU time).
 * Usage: scripts/bench/step_ab.sh [MODEL] [PAIRS]
 */
public final class StepAB {
    public static void main(String[] args) throws Exception {
        String prop = System.getProperty("prop", "gradscope.conv");
        String[] modes = System.getProperty("modes", "im2col,auto").split(",");
        String model = args.length > 0 ? args[0] : "resnet18_224";
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        StepBreakdown.Step step = StepBreakdown.load(model);
        Program p = step.program();
        RunOptions options = step.options();
        MemoryOptions memory = step.memory();
        List<List<Double>> times = new ArrayList<>();
        for (String m : modes) {
            times.add(new ArrayList<>());
        }
        List<Double> ratios = new ArrayList<>();
        List<List<Double>> cpu = new ArrayList<>();
        for (String m : modes) {
            cpu.add(new ArrayList<>());
        }
        List<Double> cpuRatios = new ArrayList<>();
        List<List<Double>> alloc = new ArrayList<>();
        for (String m : modes) {
            alloc.add(new ArrayList<>());
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        for (int s = 0; s < steps + 3; s++) {
            double[] pair = new double[modes.length];
            double[] cpuPair = new double[modes.length];
            for (int i = 0; i < modes.length; i++) {
                // Each pair in the other order than the one before: neither setting always runs first.
                int which = s % 2 == 0 ? i : modes.length - 1 - i;
                System.setProperty(prop, modes[which]);
                long a0 = allocated(threads);
                long c0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                ProgramRun run = p.run(options, memory, (phase, done, total) -> { });
                pair[which] = (System.nanoTime() - t0) / 1e6;
                cpuPair[which] = (os.getProcessCpuTime() - c0) / 1e6;
                double mb = (allocated(threads) - a0) / 1e6;
                if (s >= 3) {
                    alloc.get(which).add(mb);
                }
                if (run.gradients() != null) {
                    run.gradients().byNode().values().forEach(g -> g.storage().release());
                }
            }
            if (s >= 3) {
                for (int i = 0; i < modes.length; i++) {
                    times.get(i).add(pair[i]);
                    cpu.get(i).add(cpuPair[i]);
                }
                ratios.add(pair[modes.length - 1] / pair[0]);
                cpuRatios.add(cpuPair[modes.length - 1] / cpuPair[0]);
            }
        }
        StringBuilder line = new StringBuilder(model + ", " + steps + " pairs of " + prop + ":");
        for (int i = 0; i < modes.length; i++) {
            line.append(String.format(" %s median %.1f ms (min %.1f);", modes[i], median(times.get(i)),
                    times.get(i).stream().mapToDouble(Double::doubleValue).min().orElse(0)));
        }
        line.append(String.format(" %s / %s median of the pairs' ratios %.3f", modes[modes.length - 1], modes[0], median(ratios)));
        System.out.println(line);
        StringBuilder cpuLine = new StringBuilder("  CPU time a step:");
        for (int i = 0; i < modes.length; i++) {
            cpuLine.append(String.format(" %s median %.1f ms;", modes[i], median(cpu.get(i))));
        }
        cpuLine.append(String.format(" median of the pairs' ratios %.3f; allocated a step (Java heap, all threads):", median(cpuRatios)));
        for (int i = 0; i < modes.length; i++) {
            cpuLine.append(String.format(" %s %.1f MB", modes[i], median(alloc.get(i))));
        }
        System.out.println(cpuLine);
    }

    /** Bytes the live threads have allocated on the Java heap so far. */
    private static long allocated(com.sun.management.ThreadMXBean threads) {
        long sum = 0;
        for (long b : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(0, b);
        }
        return sum;
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        return s.get(s.size() / 2);
    }
}
