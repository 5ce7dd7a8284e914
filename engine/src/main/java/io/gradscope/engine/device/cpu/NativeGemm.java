package io.gradscope.engine.device.cpu;

import dev.ludovic.netlib.blas.BLAS;
import dev.ludovic.netlib.blas.NativeBLAS;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * float32 GEMM on the system's BLAS (OpenBLAS through netlib's JNI binding, which pins the heap
 * arrays instead of copying them) where one is installed and fast; {@link #sgemm} answers false
 * when it is not used, and the caller runs the Vector API's GEMM.
 *
 * <p>Note [Which GEMM]: the Vector API's kernel runs at the core's FMA rate, but around it Java
 * cannot schedule loads and prefetches as OpenBLAS's assembly does: 0.7-0.86x OpenBLAS at 1024 on
 * two cores, and the MLP's 128-row products 10-25% behind; in float64, 0.5-0.8x OpenBLAS's dgemm
 * on an AVX-512 Zen 5. Which one a float32 or float64 product of a given size takes is measured
 * on the machine ({@link KernelTuner}); until then, the rule sends float32 products to the system
 * BLAS when {@code libblas.so.3} loads and a probe product runs at {@link #MIN_GFLOPS} or more:
 * Debian's OpenBLAS 0.3.21 does not know recent Xeons and falls back to SSE3 kernels at 15
 * GFLOP/s a core unless OPENBLAS_CORETYPE names the right set (the launcher does), and the
 * reference BLAS runs at about 5. {@code -Dgradscope.blas=java} (or GRADSCOPE_BLAS=java) keeps
 * every product on the Vector API; {@code native} sends every one to the system BLAS.
 *
 * <p>Note [One pool]: OpenBLAS threads each call itself, unless OPENBLAS_NUM_THREADS=1: then each
 * call is one thread and the pool computes a product's row or column blocks side by side. On a
 * 2-core Xeon the two did about as well (the MLP step at 0.81-1.04 of the Vector API GEMM's time on
 * OpenBLAS's threads, 0.82-0.95 split; paired runs in one JVM), and the launcher set the variable.
 * On a 2-core AMD EPYC the next day, timed in turns with PyTorch (`bench --compare-pytorch`), the
 * MLP step took 5.7-6.8 ms on OpenBLAS's threads against 9.4-10.1 split (three pairs of runs; alone,
 * 5.2-6.2 against 4.6-5.6), so the launcher left OpenBLAS its threads. Why the split lost
 * in turns was not found: waiting 300 ms after PyTorch's turn (its spinning threads gone) and a
 * passive OpenMP wait in PyTorch changed nothing, and alone, 30 ms idle or 64 MB of memory swept
 * before each timed run left the split as fast as back to back. On the shared 2-core Xeon
 * (Sapphire Rapids) of 2026-12-03, in alternating runs of `bench --compare-pytorch` at load
 * averages of 3-14, the split won: resnet18's step at a median 1.29x PyTorch's time against 1.83x
 * threaded (six and seven runs), then, with a batch of small products side by side on the pool
 * (attention's heads; one after another on one core before), resnet18 1.39-1.77x against
 * 1.93-2.69x, the encoder 0.83-0.87x against 0.97-1.59x and the MLP step 0.57-1.03x against
 * 0.70-3.34x (two and three runs). OpenBLAS's two threads wait for each other in sched_yield
 * inside every product (14% of a resnet18 step's samples under load), and one that the load takes
 * away stalls the other; the pool's caller takes what a slow helper has not. The launcher sets the
 * variable again.
 */
final class NativeGemm {
    private NativeGemm() {
    }

    /**
     * The probe's floor per thread OpenBLAS may use: above misdetected (15-31 GFLOP/s a thread
     * here) and reference kernels, below OpenBLAS's right ones on a busy core (85-150).
     */
    static final double MIN_GFLOPS = 50;

    /** Kept so that the logger's level (netlib warns on stderr when no native BLAS loads) is not collected. */
    private static final Logger QUIET = Logger.getLogger("dev.ludovic.netlib.blas.InstanceBuilder");

    /** The loaded library, used or not; null when none loads or gradscope.blas=java. */
    private static final Loaded LOADED = load();
    /** The least product (2mnk) the pool splits. */
    private static final long SPLIT_FLOPS = 1L << 22;
    /** OPENBLAS_NUM_THREADS=1: the pool splits a product in rows or columns (Note [One pool]). */
    private static final boolean SPLIT = "1".equals(System.getenv("OPENBLAS_NUM_THREADS"));
    private static final Choice CHOICE = choose();
    private static final boolean USE = CHOICE.use();

    /** Whether float32 products go to the system BLAS, and why (empty: as asked, nothing more to say). */
    private record Choice(boolean use, String why) {
    }

    /** netlib's native entry point, past its Java-side checks (they reject views that end before ld × columns). */
    private record Loaded(BLAS blas, MethodHandle sgemm, MethodHandle dgemm) {
    }

    /** Why the system BLAS is or is not a candidate, in a line (empty: as asked, nothing more to say). */
    static String why() {
        return CHOICE.why();
    }

    /** Whether the probe found the system BLAS fast (the rule's answer until {@link KernelTuner} has measured). */
    static boolean used() {
        return USE;
    }

    /**
     * What the user asked for with gradscope.blas or GRADSCOPE_BLAS ({@code "native"} or {@code
     * "java"}, and where), or null for the machine's own choice.
     */
    static String[] asked() {
        Wanted w = wanted();
        return w.setting() == null || !(w.value().equals("native") || w.value().equals("java")) ? null
                : new String[] {w.value(), w.setting()};
    }

    /** Whether the system BLAS runs one thread a call, the pool splitting a product (Note [One pool]). */
    static boolean splits() {
        return LOADED != null && SPLIT;
    }

    /** Whether the pool splits one m × n × k product itself (with {@link #splits}): 4 MFLOP or more, 32 rows or columns. */
    static boolean splitsEach(int m, int n, int k) {
        return 2L * m * n * k >= SPLIT_FLOPS && Math.min(CpuThreads.THREADS, Math.max(m, n) / 16) > 1;
    }

    /** Whether a system BLAS loaded (used or not). */
    static boolean loaded() {
        return LOADED != null;
    }

    /**
     * C[0:m, 0:n] = A B (float32), C row-major with n columns at co, on the system BLAS where the
     * tuner picks it for this size; false (nothing written) when it does not, or an operand has
     * neither unit row nor unit column stride. For callers that hold arrays (Winograd's products).
     */
    static boolean sgemm(float[] a, int ao, int ars, int acs, float[] b, int bo, int brs, int bcs,
                         float[] c, int co, int m, int n, int k, boolean parallel) {
        return LOADED != null && KernelTuner.pick(KernelChoice.gemm(true, 2L * m * n * k)).equals("native")
                && product(a, ao, ars, acs, b, bo, brs, bcs, c, co, m, n, k, parallel && SPLIT);
    }

    /** {@link #product(Object, int, int, int, Object, int, int, int, Object, int, int, int, int, boolean)} on storages. */
    static boolean product(io.gradscope.engine.tensor.Storage a, int ao, int ars, int acs, io.gradscope.engine.tensor.Storage b,
                           int bo, int brs, int bcs, io.gradscope.engine.tensor.Storage c, int co, int m, int n, int k,
                           boolean split) {
        return product(a.data(), ao, ars, acs, b.data(), bo, brs, bcs, c.data(), co, m, n, k, split);
    }

    /**
     * {@link #sgemm} on the loaded library whatever the choice (tests call it directly); with
     * {@code split}, a product of 4 MFLOP or more runs as blocks of at least 16 rows or columns on the pool.
     */
    static boolean product(Object a, int ao, int ars, int acs, Object b, int bo, int brs, int bcs,
                           Object c, int co, int m, int n, int k, boolean split) {
        boolean f32 = c instanceof float[];
        if (LOADED == null || m == 0 || n == 0 || k == 0 || a.getClass() != c.getClass() || b.getClass() != c.getClass()
                || !f32 && !(c instanceof double[])) {
            return false;
        }
        Lay la = lay(ars, acs, m, k);
        Lay lb = lay(brs, bcs, k, n);
        // The native code touches what these bounds allow, and nothing checks it after them.
        if (la == null || lb == null || !inside(length(a), ao, m, k, ars, acs) || !inside(length(b), bo, k, n, brs, bcs)
                || !inside(length(c), co, m, n, n, 1)) {
            return false;
        }
        // A small product stays whole: 128 × 512 × 10 ran at 20 GFLOP/s split in two, 55 whole. A big
        // one splits its longer side: 784 × 512 × 128 by rows 134 against 113, 128 × 512 × 784 by
        // columns 133 against 118 (each thread packs the other operand whole).
        boolean byRows = m >= n;
        int parts = split && 2L * m * n * k >= SPLIT_FLOPS ? Math.min(CpuThreads.THREADS, (byRows ? m : n) / 16) : 1;
        if (parts <= 1) {
            call(la, lb, a, ao, b, bo, c, co, n, m, n, k);
        } else if (byRows) {
            CpuThreads.parallelFor(parts, t -> {
                int i0 = m * t / parts / 16 * 16;
                int i1 = t == parts - 1 ? m : m * (t + 1) / parts / 16 * 16;
                call(la, lb, a, ao + i0 * ars, b, bo, c, co + i0 * n, n, i1 - i0, n, k);
            });
        } else {
            CpuThreads.parallelFor(parts, t -> {
                int j0 = n * t / parts / 16 * 16;
                int j1 = t == parts - 1 ? n : n * (t + 1) / parts / 16 * 16;
                call(la, lb, a, ao, b, bo + j0 * bcs, c, co + j0, n, m, j1 - j0, k);
            });
        }
        return true;
    }

    /**
     * Row-major C (m × n, row stride ldc) is column-major Cᵀ: Cᵀ = Bᵀ Aᵀ, each operand read where
     * it lies, its unit stride deciding whether BLAS transposes it.
     */
    private static void call(Lay la, Lay lb, Object a, int ao, Object b, int bo, Object c, int co, int ldc,
                             int m, int n, int k) {
        try {
            if (c instanceof float[] cf) {
                LOADED.sgemm().invokeExact(LOADED.blas(), lb.trans, la.trans, n, m, k, 1f, (float[]) b, bo, lb.ld, (float[]) a,
                        ao, la.ld, 0f, cf, co, ldc);
            } else {
                LOADED.dgemm().invokeExact(LOADED.blas(), lb.trans, la.trans, n, m, k, 1.0, (double[]) b, bo, lb.ld,
                        (double[]) a, ao, la.ld, 0.0, (double[]) c, co, ldc);
            }
        } catch (Throwable e) {
            throw new IllegalStateException("native gemm failed", e);
        }
    }

    private static int length(Object array) {
        return array instanceof float[] f ? f.length : ((double[]) array).length;
    }

    private record Lay(String trans, int ld) {
    }

    /** X (rows × cols, strides rs, cs) as BLAS sees column-major Xᵀ; null when neither stride is a unit one. */
    private static Lay lay(int rs, int cs, int rows, int cols) {
        if (cs == 1 && (rows == 1 || rs >= cols)) {
            return new Lay("N", rows == 1 ? cols : rs);
        }
        if (rs == 1 && (cols == 1 || cs >= rows)) {
            return new Lay("T", cols == 1 ? rows : cs);
        }
        return null;
    }

    /** Every element of X (rows × cols at off, strides rs, cs ≥ 0) lies in an array of this length. */
    private static boolean inside(int length, int off, int rows, int cols, int rs, int cs) {
        long last = off + (long) (rows - 1) * rs + (long) (cols - 1) * cs;
        return off >= 0 && rs >= 0 && cs >= 0 && last < length;
    }

    /** What the user asked for, and where: -Dgradscope.blas wins over GRADSCOPE_BLAS; absent, auto. */
    private record Wanted(String value, String setting) {
    }

    private static Wanted wanted() {
        String p = System.getProperty("gradscope.blas");
        String e = System.getenv("GRADSCOPE_BLAS");
        if (p != null && !p.isBlank()) {
            return new Wanted(p.trim().toLowerCase(Locale.ROOT), "gradscope.blas=" + p.trim());
        }
        if (e != null && !e.isBlank()) {
            return new Wanted(e.trim().toLowerCase(Locale.ROOT), "GRADSCOPE_BLAS=" + e.trim());
        }
        return new Wanted("auto", null);
    }

    private static Loaded load() {
        if (wanted().value().equals("java")) {
            return null;
        }
        Level before = QUIET.getLevel();
        QUIET.setLevel(Level.OFF);
        try {
            BLAS blas = NativeBLAS.getInstance();
            return new Loaded(blas, entry(blas, "sgemmK", float.class, float[].class), entry(blas, "dgemmK", double.class,
                    double[].class));
        } catch (RuntimeException | LinkageError | ReflectiveOperationException e) {
            return null;
        } finally {
            QUIET.setLevel(before);
        }
    }

    /** netlib's native {@code ?gemmK(transa, transb, m, n, k, alpha, a, offa, lda, b, offb, ldb, beta, c, offc, ldc)}. */
    private static MethodHandle entry(BLAS blas, String name, Class<?> scalar, Class<?> array) throws ReflectiveOperationException {
        Class<?>[] params = {String.class, String.class, int.class, int.class, int.class, scalar, array, int.class, int.class,
            array, int.class, int.class, scalar, array, int.class, int.class};
        Method m = blas.getClass().getDeclaredMethod(name, params);
        m.setAccessible(true);
        Class<?>[] withReceiver = new Class<?>[params.length + 1];
        withReceiver[0] = BLAS.class;
        System.arraycopy(params, 0, withReceiver, 1, params.length);
        return MethodHandles.lookup().unreflect(m).asType(MethodType.methodType(void.class, withReceiver));
    }

    private static Choice choose() {
        Wanted w = wanted();
        Choice c = decide(w.value());
        if (w.setting() == null) {
            return c;
        }
        String asked = switch (w.value()) {
            case "java", "native", "auto" -> w.setting();
            default -> w.setting() + " is not auto, native or java: taken as auto";
        };
        return new Choice(c.use(), c.why().isEmpty() ? asked : c.why() + "; " + asked);
    }

    private static Choice decide(String want) {
        if (want.equals("java")) {
            return new Choice(false, "");
        }
        if (LOADED == null) {
            return new Choice(false, "no system BLAS loaded");
        }
        if (want.equals("native")) {
            return new Choice(true, "");
        }
        // OpenBLAS threaded (no OPENBLAS_NUM_THREADS=1), the probe may run on every core; a 256³ product gains about
        // 1.5x from a second one (misdetected kernels: 25-40 GFLOP/s on two threads, right ones 78-225).
        double floor = MIN_GFLOPS * (SPLIT ? 1 : Math.max(1, CpuThreads.THREADS / 2));
        double gflops = probe(floor);
        if (gflops >= floor) {
            return new Choice(true, String.format(Locale.ROOT, "a 256³ probe at %.0f GFLOP/s%s", gflops,
                    SPLIT ? ", one thread a call" : ""));
        }
        String core = System.getenv("OPENBLAS_CORETYPE");
        return new Choice(false, String.format(Locale.ROOT, "the system BLAS ran a 256³ probe at %.0f GFLOP/s, under the "
                + "%.0f GFLOP/s it needs: its kernels may not suit this CPU; %s", gflops, floor,
                core == null || core.isBlank() ? "OPENBLAS_CORETYPE can name the right ones, e.g. Haswell or SkylakeX"
                        : "OPENBLAS_CORETYPE=" + core + " is set"));
    }

    /**
     * The best GFLOP/s of 256³ products, after one to warm the library: five of them, or up to
     * twenty while none reaches {@code floor}. On a shared machine a burst of load slowed all five
     * of one round (34 GFLOP/s where the rounds before and after ran 64-70) and left every product
     * of that run on the Vector API; a slow library costs 20-40 ms more to be sure of.
     */
    private static double probe(double floor) {
        int s = 256;
        float[] x = new float[s * s];
        for (int i = 0; i < x.length; i++) {
            x[i] = (i % 7) * 0.25f - 0.75f;
        }
        float[] y = new float[s * s];
        long best = Long.MAX_VALUE;
        double flops = 2.0 * s * s * s;
        for (int r = 0; r <= 20 && (r <= 5 || flops / best < floor); r++) {
            long t0 = System.nanoTime();
            product((Object) x, 0, s, 1, x, 0, s, 1, y, 0, s, s, s, false);
            long t = System.nanoTime() - t0;
            if (r > 0) {
                best = Math.min(best, t);
            }
        }
        return flops / best;
    }
}
