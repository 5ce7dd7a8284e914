package io.gradscope.engine.device.cpu;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Which kernel each {@link KernelChoice} takes on this machine (Note [Choices by measurement]): in
 * order, what the user asked for (GRADSCOPE_BLAS for the GEMMs; GRADSCOPE_CONV is ConvPath's and
 * never reaches the choice), this machine's cache file ({@link TuneCache}), a measurement made in
 * this process, and until one of those is in, the rule. The first {@link #pick} starts the
 * measurement on a thread of its own (a few seconds of work, once a machine), so nothing waits
 * for it: the window's first frame, a program's first run take the rule's kernels meanwhile.
 *
 * <p>{@code gradscope.tune} (or GRADSCOPE_TUNE) says what it may do: {@code auto} (the default, as
 * above), {@code rule} (neither reads nor measures: the tests run so, each test of a kernel forcing
 * it and each test of the choice faking the times it chooses from), or {@code measure} (measures
 * again, ignoring the cache, and writes it).
 */
public final class KernelTuner {
    private KernelTuner() {
    }

    /** A choice's kernel and where it came from: "rule", "cache", "measured", or the user's setting. */
    record Pick(String kernel, String source) {
    }

    private static final String MODE = mode();
    /** The background measurement waits this long after the first pick. */
    private static final long START_DELAY_MS = 2000;
    private static volatile Map<KernelChoice, Pick> picks = rules();
    private static volatile boolean started;
    private static Thread worker;
    /** The times the last measurement took its choices from (ms per candidate), for bench's lines. */
    private static volatile Map<KernelChoice, Map<String, Double>> lastTimes = Map.of();

    /** The kernel that {@code c} takes now. */
    static String pick(KernelChoice c) {
        if (!started) {
            start();
        }
        return picks.get(c).kernel();
    }

    /** The rule's answer, until a measurement is in: the kernels that served most machines, and the user's setting for the GEMMs. */
    static Map<KernelChoice, Pick> rules() {
        Map<KernelChoice, Pick> m = new EnumMap<>(KernelChoice.class);
        String[] asked = NativeGemm.asked();
        for (KernelChoice c : KernelChoice.values()) {
            m.put(c, asked != null && c.isGemm() ? new Pick(asked[0], asked[1]) : new Pick(rule(c), "rule"));
        }
        return m;
    }

    /**
     * The rule: the system BLAS where its probe found it fast (float32) and never for float64; the
     * direct 3x3 kernel where the vectors have its 16 lanes, else Winograd's (which leaves small
     * planes to im2col by its own count of tiles).
     */
    static String rule(KernelChoice c) {
        if (c.isGemm()) {
            return c.name().startsWith("SGEMM") && NativeGemm.used() ? "native" : "java";
        }
        return CpuMatmul.VECTOR && DirectConv.available() ? "direct" : "winograd";
    }

    private static String mode() {
        String p = System.getProperty("gradscope.tune");
        String e = System.getenv("GRADSCOPE_TUNE");
        String v = p != null && !p.isBlank() ? p : e;
        return v == null || v.isBlank() ? "auto" : v.trim().toLowerCase(Locale.ROOT);
    }

    private static synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        if (MODE.equals("rule")) {
            return;
        }
        TuneCache cache = new TuneCache(TuneCache.defaultDir(), Machine.here());
        Map<KernelChoice, String> cached = MODE.equals("measure") ? null : cache.load();
        if (cached != null) {
            adopt(cached, "cache");
            return;
        }
        worker = new Thread(() -> {
            // Not in the first seconds: a window's first frame and a program's first run come first.
            try {
                Thread.sleep(START_DELAY_MS);
            } catch (InterruptedException e) {
                return;
            }
            measureAndKeep(cache);
        }, "gradscope-kernel-tuner");
        worker.setDaemon(true);
        worker.setPriority(Thread.MIN_PRIORITY);
        worker.start();
    }

    /** Measures every choice now, adopts the winners and writes the cache; what {@code bench --tune} runs. */
    public static synchronized void tuneNow() {
        started = true;
        if (worker != null && worker.isAlive()) {
            awaitWorker();
        }
        picks = rules();
        measureAndKeep(new TuneCache(TuneCache.defaultDir(), Machine.here()));
    }

    /** Waits for a measurement under way (bench waits, so that it times the chosen kernels); at once if none. */
    public static void awaitMeasurement() {
        if (!started) {
            start();
        }
        awaitWorker();
    }

    private static void awaitWorker() {
        Thread w = worker;
        if (w != null) {
            try {
                w.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Measures, adopts the winners and keeps them in the cache. A choice whose times did not settle
     * (a machine too busy for the JIT to finish within the budget) keeps the rule's kernel, in the
     * cache too (its times say so): the measurement is made once a machine, and {@code bench --tune}
     * makes it again.
     */
    private static void measureAndKeep(TuneCache cache) {
        Map<KernelChoice, Map<String, Double>> times = KernelTimings.measure();
        Map<KernelChoice, String> won = winners(times);
        lastTimes = times;
        won.replaceAll((c, k) -> times.getOrDefault(c, Map.of()).containsKey(KernelTimings.UNSETTLED) ? rule(c) : k);
        adopt(won, "measured");
        cache.save(won, times);
    }

    /** A candidate replaces the rule's only when it takes less than this fraction of the rule's time: a tie is noise. */
    static final double MARGIN = 0.95;

    /**
     * Each choice's fastest candidate among those timed, where it beats the rule's own by {@link
     * #MARGIN}; else the rule's (a candidate that does not apply on this machine, such as the direct
     * kernel without 16-lane vectors, is not timed).
     */
    static Map<KernelChoice, String> winners(Map<KernelChoice, Map<String, Double>> times) {
        Map<KernelChoice, String> won = new EnumMap<>(KernelChoice.class);
        for (KernelChoice c : KernelChoice.values()) {
            Map<String, Double> t = times.getOrDefault(c, Map.of());
            String best = null;
            for (String k : c.candidates) {
                Double ms = t.get(k);
                if (ms != null && !ms.isNaN() && (best == null || ms < t.get(best))) {
                    best = k;
                }
            }
            String rule = rule(c);
            Double ruleMs = t.get(rule);
            boolean clear = best != null && (ruleMs == null || ruleMs.isNaN() || t.get(best) < MARGIN * ruleMs);
            won.put(c, clear ? best : rule);
        }
        return won;
    }

    /** Takes {@code found} for every choice the user did not set. */
    static void adopt(Map<KernelChoice, String> found, String source) {
        Map<KernelChoice, Pick> next = new EnumMap<>(KernelChoice.class);
        Map<KernelChoice, Pick> now = picks;
        for (KernelChoice c : KernelChoice.values()) {
            Pick p = now.get(c);
            boolean user = !p.source().equals("rule") && !p.source().equals("cache") && !p.source().equals("measured");
            next.put(c, user || !found.containsKey(c) ? p : new Pick(found.get(c), source));
        }
        picks = next;
    }

    /**
     * Back to the rule's picks, the user's settings (gradscope.blas) read again, with no measurement
     * started: the tests of the choice start from here, and a test of the engine's own kernels sets
     * gradscope.blas=java and calls this.
     */
    public static synchronized void resetToRules() {
        awaitWorker();
        picks = rules();
        started = true;
    }

    /** One line per choice: its key, kernel, source and, where measured in this process, the candidates' times. */
    public static List<String> describe() {
        List<String> lines = new ArrayList<>();
        Map<KernelChoice, Pick> now = picks;
        for (KernelChoice c : KernelChoice.values()) {
            Pick p = now.get(c);
            Map<String, Double> t = lastTimes.get(c);
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-24s %-9s (%s", c.key(), p.kernel(), p.source()));
            if (t != null) {
                t.forEach((k, ms) -> b.append(k.equals(KernelTimings.UNSETTLED) ? "; not settled, the rule's kept"
                        : String.format(Locale.ROOT, "; %s %.3f ms", k, ms)));
            }
            lines.add(b.append(")").toString());
        }
        return lines;
    }

    /** Each choice's key and kernel, and its source, for bench's JSON. */
    public static Map<String, String> choices() {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        picks.forEach((c, p) -> m.put(c.key(), p.kernel() + " (" + p.source() + ")"));
        return m;
    }

    /** The facts of this machine that the choices are kept for, for bench's JSON. */
    public static Map<String, Object> machine() {
        return Machine.here().describe();
    }

    /** Where this machine's cache file is (whether or not it exists yet). */
    public static String cacheFile() {
        return new TuneCache(TuneCache.defaultDir(), Machine.here()).file().toString();
    }
}
