package io.gradscope.engine.device.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * GEMM with the Vector API (jdk.incubator.vector): A packed into slivers of MR rows, B into slivers
 * of FNR = two vectors of columns, per block of KC along k; a register-blocked micro-kernel of
 * MR × FNR (12 × 32 with AVX-512, 6 × 16 with AVX2: every accumulator in a register) over tiles of
 * C. Loaded only when the module is present; {@link CpuMatmul} falls back to plain loops. A product
 * of at most one vector of columns goes to {@link NarrowGemm} instead (Note [Narrow products]).
 *
 * <p>Note [Two phases]: first both operands are packed, A's slivers and B's slivers (or, for a
 * row-major B, its rows: Note [Packing B by rows]) split over the pool, into arrays all tasks share
 * (A's sliver rows are written in order, reading MR rows side by side; an unpacked A, read in
 * place, made the kernel 25% slower). Then the
 * tiles of C are split into tasks (row blocks of MC × column blocks, at least four tasks per
 * thread where there is work), so a matrix of 128 rows still uses every core and a core that the
 * machine's load slows down simply takes fewer tasks. KC = 256 and MC ≈ 128 measured best among
 * 128-512 and 64-256.
 *
 * <p>Note [Loop order]: within a task, for each k block, each A sliver (MR × kc, 12 KB) stays in L1
 * while the task's B slivers (kc × FNR, 32 KB each) stream from L2 past it. The other order (a B
 * sliver held while the A slivers stream) keeps 44 KB of a 48 KB L1 busy per kernel call, and was
 * 5-17% slower on one core on the MLP's shapes and at 1024 (medians of 15 alternating rounds). A
 * tile's B slivers of one k block stay within 512 KB, so they are still in L2 when the next A sliver
 * comes (without that bound, 2048 ran 20% slower).
 *
 * <p>Note [Packing B by rows]: a row-major B (the weights of a forward product, the incoming
 * gradient of a weight's) is packed along its rows, each row read once from left to right with its
 * FNR-column pieces stored into their slivers, two vectors each. Sliver by sliver, the same copy is
 * kc pieces of 128 bytes read down a column, one call each; packing was 30% of a 128-row product's
 * time on one core, and by rows the MLP's forward products run 9-13% faster (1024 and 2048: 5-6%).
 *
 * <p>Note [Inlined write-back]: the accumulators live in locals and are written back inside the
 * kernel method; handing vectors to a helper the JIT does not inline costs a factor of five. Each
 * kernel has one fixed write-back (store, or load-add-store): with the choice (or a row count) as
 * branches inside one kernel, the compiled method sometimes outgrew the JIT's inlining budget, its
 * vector operations ran as plain Java objects, and an MLP step took 15-45 ms instead of 4-5, in
 * about one JVM in three.
 */
final class VectorGemm {
    private VectorGemm() {
    }

    static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    /** Rows per A sliver: what fits in the registers beside two B vectors and a broadcast. */
    static final int MR = FS.length() >= 16 ? 12 : 6;
    static final int FNR = 2 * FS.length();
    private static final int KC = 256;
    /** Rows of a row-major B per packing task. */
    private static final int ROWS = 32;
    private static final int MC = MR == 12 ? 120 : 126;

    /** True when the vectors are wide enough to be worth it (AVX2 or better). */
    static boolean useful() {
        return FS.length() >= 8;
    }

    /** The calling thread's packed operands, kept between calls (no page faults per call). */
    private static final ThreadLocal<float[][]> PACKED = ThreadLocal.withInitial(() -> new float[2][0]);
    /** Set while a call on this thread uses {@link #PACKED}: a call nested in it (a pool thread helping) gets its own. */
    private static final ThreadLocal<boolean[]> IN_USE = ThreadLocal.withInitial(() -> new boolean[1]);

    /**
     * C[i0:i1, 0:n] = A[i0:i1, 0:k] B[0:k, 0:n] for strided A and B; C row-major with n columns at
     * co, written whole (the first k block stores, the others add: no pass zeroing C first). With
     * {@code parallel}, packing and tiles run on the pool (Note [Two phases]).
     */
    static void sgemm(float[] a, int ao, int ars, int acs, float[] b, int bo, int brs, int bcs,
                      float[] c, int co, int i0, int i1, int n, int k, boolean parallel) {
        int m = i1 - i0;
        if (m == 0 || n == 0) {
            return;
        }
        if (k == 0) {
            java.util.Arrays.fill(c, co + i0 * n, co + i1 * n, 0f);
            return;
        }
        if (NarrowGemm.takes(n, ars, acs)) {
            NarrowGemm.sgemm(a, ao, ars, acs, b, bo, brs, bcs, c, co, i0, i1, n, k, parallel);
            return;
        }
        boolean[] inUse = IN_USE.get();
        boolean own = !inUse[0];
        inUse[0] = true;
        try {
            int aSlivers = (m + MR - 1) / MR;
            int bSlivers = (n + FNR - 1) / FNR;
            Packed p = new Packed(aSlivers * MR, bSlivers * FNR, k, kBlock(k), buffer(0, aSlivers * MR * k, own),
                    buffer(1, bSlivers * FNR * k, own));
            int threads = parallel ? CpuThreads.THREADS : 1;
            int aOff = ao + i0 * ars;
            // Row-major B is packed along its rows (ROWS of them per part), other layouts by sliver.
            boolean byRows = bcs == 1;
            int bParts = byRows ? (k + ROWS - 1) / ROWS : bSlivers;
            int total = aSlivers + bParts;
            int packTasks = Math.min(total, 4 * threads);
            run(threads == 1 ? 1 : packTasks, t -> {
                for (int s = total * t / packTasks; s < total * (t + 1) / packTasks; s++) {
                    if (s < aSlivers) {
                        packA(a, aOff, ars, acs, m, k, s, p);
                    } else if (byRows) {
                        int q0 = (s - aSlivers) * ROWS;
                        packBRows(b, bo, brs, n, q0, Math.min(k, q0 + ROWS), p);
                    } else {
                        packB(b, bo, brs, bcs, n, k, s - aSlivers, p);
                    }
                }
            }, threads == 1 ? packTasks : 1);
            // Row blocks of equal height (a whole number of slivers), not MC and a sliver's remainder.
            int rowBlocks = (m + MC - 1) / MC;
            int mc = ((m + rowBlocks - 1) / rowBlocks + MR - 1) / MR * MR;
            rowBlocks = (m + mc - 1) / mc;
            // A tile's B slivers (one k block of them) stay within half of a 2 MB L2 (Note [Loop order]).
            int maxSlivers = Math.max(1, (512 << 10) / (p.kc() * FNR * Float.BYTES));
            int colBlocks = Math.max((bSlivers + maxSlivers - 1) / maxSlivers,
                    Math.max(1, Math.min(bSlivers, (4 * threads + rowBlocks - 1) / rowBlocks)));
            // A tile count the threads divide: the last tiles do not leave a core idle.
            while (colBlocks < bSlivers && (rowBlocks * colBlocks) % threads != 0) {
                colBlocks++;
            }
            int slPerBlock = (bSlivers + colBlocks - 1) / colBlocks;
            int cb = (bSlivers + slPerBlock - 1) / slPerBlock;
            int cOff = co + i0 * n;
            int tiles = rowBlocks * cb;
            run(threads == 1 ? 1 : tiles, id -> {
                int rb = id / cb;
                int s0 = (id % cb) * slPerBlock;
                tile(p, c, cOff, n, k, rb * mc, Math.min(m, rb * mc + mc), s0, Math.min(bSlivers, s0 + slPerBlock));
            }, threads == 1 ? tiles : 1);
        } finally {
            if (own) {
                inUse[0] = false;
            }
        }
    }

    /** Packed A (mPad rows) and B (nPad columns): k block pc's sliver s starts at pc·mPad + s·MR·kc (A), pc·nPad + s·FNR·kc (B). */
    private record Packed(int mPad, int nPad, int k, int kc, float[] a, float[] b) {
    }

    /**
     * The k block length: k split into blocks of at most KC, all but the last equal (k = 784 gives
     * four blocks of 196, not three of 256 and one of 16 that would load and store C for 16 steps).
     */
    private static int kBlock(int k) {
        int blocks = (k + KC - 1) / KC;
        return (k + blocks - 1) / blocks;
    }

    private static float[] buffer(int which, int n, boolean own) {
        if (!own) {
            return new float[n];
        }
        float[][] b = PACKED.get();
        if (b[which].length < n) {
            b[which] = new float[n];
        }
        return b[which];
    }

    /** Runs ids [0, tasks · per) as {@code tasks} tasks of {@code per} consecutive ids, on the pool when tasks > 1. */
    private static void run(int tasks, java.util.function.IntConsumer body, int per) {
        java.util.function.IntConsumer each = t -> {
            for (int q = 0; q < per; q++) {
                body.accept(t * per + q);
            }
        };
        if (tasks <= 1) {
            each.accept(0);
        } else {
            CpuThreads.parallelFor(tasks, each);
        }
    }

    /**
     * C rows [r0, r1) × B slivers [s0, s1), all k blocks: the first stores, the others add. A sliver
     * with fewer than MR real rows or FNR real columns (the last ones) goes through a scratch tile.
     * See Note [Loop order].
     */
    private static void tile(Packed p, float[] c, int co, int ldc, int k, int r0, int r1, int s0, int s1) {
        float[] edge = null;
        for (int pc = 0; pc < k; pc += p.kc()) {
            int kc = Math.min(p.kc(), k - pc);
            int aBase = pc * p.mPad();
            int bBase = pc * p.nPad();
            boolean add = pc > 0;
            for (int ir = r0; ir < r1; ir += MR) {
                int mr = Math.min(MR, r1 - ir);
                int ao = aBase + ir * kc;
                for (int s = s0; s < s1; s++) {
                    int jr = s * FNR;
                    int nr = Math.min(FNR, ldc - jr);
                    int bo = bBase + jr * kc;
                    int cOff = co + ir * ldc + jr;
                    if (nr == FNR && mr == MR) {
                        kernel(kc, p.a(), ao, p.b(), bo, c, cOff, ldc, add);
                    } else {
                        if (edge == null) {
                            edge = new float[MR * FNR];
                        }
                        kernel(kc, p.a(), ao, p.b(), bo, edge, 0, FNR, false);
                        for (int i = 0; i < mr; i++) {
                            for (int j = 0; j < nr; j++) {
                                c[cOff + i * ldc + j] = (add ? c[cOff + i * ldc + j] : 0f) + edge[i * FNR + j];
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * C[0:MR, 0:FNR] = Ap · Bp over kc, or += with {@code add}: two kernels, each with one fixed
     * write-back, so the JIT compiles every vector operation of either inline (Note [Inlined write-back]).
     */
    private static void kernel(int kc, float[] ap, int ao, float[] bp, int bo, float[] c, int co, int ldc, boolean add) {
        if (MR == 12) {
            if (add) {
                VectorGemmKernels.kernel12Add(kc, ap, ao, bp, bo, c, co, ldc);
            } else {
                VectorGemmKernels.kernel12(kc, ap, ao, bp, bo, c, co, ldc);
            }
        } else if (add) {
            VectorGemmKernels.kernel6Add(kc, ap, ao, bp, bo, c, co, ldc);
        } else {
            VectorGemmKernels.kernel6(kc, ap, ao, bp, bo, c, co, ldc);
        }
    }

    /** B's sliver s (columns s·FNR .. +FNR, zero padded), every k block: kc rows of FNR. */
    private static void packB(float[] b, int off, int rs, int cs, int n, int k, int s, Packed p) {
        // Only a B whose columns are not adjacent comes here (a row-major one goes by rows: packBRows).
        int jr = s * FNR;
        int nr = Math.min(FNR, n - jr);
        float[] bp = p.b();
        int w = FS.length();
        int[] columns = new int[w];
        for (int j = 0; j < w; j++) {
            columns[j] = j * cs;
        }
        for (int pc = 0; pc < k; pc += p.kc()) {
            int kc = Math.min(p.kc(), k - pc);
            int base = pc * p.nPad() + jr * kc;
            if (rs == 1 && nr == FNR) {
                // B is a transposed view (the Wᵀ of an input gradient), a whole sliver: each row of the
                // sliver gathered from FNR rows of the original, written in order.
                for (int q = 0; q < kc; q++) {
                    int src = off + pc + q + jr * cs;
                    int dst = base + q * FNR;
                    FloatVector.fromArray(FS, b, src, columns, 0).intoArray(bp, dst);
                    FloatVector.fromArray(FS, b, src + w * cs, columns, 0).intoArray(bp, dst + w);
                }
                continue;
            }
            if (rs == 1) {
                // B is a transposed view (the Wᵀ of an input gradient): each column is a contiguous row
                // of the original, so read along it and write down the sliver.
                for (int j = 0; j < FNR; j++) {
                    int src = off + pc + (jr + j) * cs;
                    for (int q = 0; q < kc; q++) {
                        bp[base + q * FNR + j] = j < nr ? b[src + q] : 0f;
                    }
                }
                continue;
            }
            for (int q = 0; q < kc; q++) {
                int src = off + (pc + q) * rs + jr * cs;
                int dst = base + q * FNR;
                for (int j = 0; j < nr; j++) {
                    bp[dst + j] = b[src + j * cs];
                }
                for (int j = nr; j < FNR; j++) {
                    bp[dst + j] = 0f;
                }
            }
        }
    }

    /**
     * Rows [q0, q1) of a row-major B into every sliver: each row read once, left to right, its
     * FNR-column pieces written to their slivers (the last one zero padded).
     */
    private static void packBRows(float[] b, int off, int rs, int n, int q0, int q1, Packed p) {
        float[] bp = p.b();
        int w = FS.length();
        int full = n / FNR;
        for (int q = q0; q < q1; q++) {
            int pc = q / p.kc() * p.kc();
            int kc = Math.min(p.kc(), p.k() - pc);
            int src = off + q * rs;
            int dst = pc * p.nPad() + (q - pc) * FNR;
            int step = FNR * kc;
            for (int s = 0; s < full; s++, src += FNR, dst += step) {
                FloatVector.fromArray(FS, b, src).intoArray(bp, dst);
                FloatVector.fromArray(FS, b, src + w).intoArray(bp, dst + w);
            }
            int nr = n - full * FNR;
            if (nr > 0) {
                for (int j = 0; j < FNR; j++) {
                    bp[dst + j] = j < nr ? b[src + j] : 0f;
                }
            }
        }
    }

    /** A's sliver s (rows s·MR .. +MR, zero padded), every k block: kc columns of MR, written in order. */
    private static void packA(float[] a, int off, int rs, int cs, int m, int k, int s, Packed p) {
        int ir = s * MR;
        int mr = Math.min(MR, m - ir);
        float[] ap = p.a();
        for (int pc = 0; pc < k; pc += p.kc()) {
            int kc = Math.min(p.kc(), k - pc);
            int dst = pc * p.mPad() + ir * kc;
            int src = off + ir * rs + pc * cs;
            if (mr == 12 && MR == 12 && cs == 1) {
                // Row-major A, a whole sliver: twelve sequential streams, one per row, unrolled.
                packA12(a, src, rs, kc, ap, dst);
                continue;
            }
            if (mr == 12 && MR == 12 && rs == 1) {
                // A is a transposed view (the xᵀ of a weight's gradient): each column's twelve rows are adjacent.
                // A whole vector per column (its last lanes are overwritten by the next column's), the
                // last column (or one near A's end) copied exactly: a call per 48 bytes cost 3-5%.
                int q = 0;
                // (16 lanes: a wider vector would reach past the sliver's end, into another task's.)
                for (; FS.length() == 16 && q < kc - 1 && src + q * cs + FS.length() <= a.length; q++, dst += 12) {
                    FloatVector.fromArray(FS, a, src + q * cs).intoArray(ap, dst);
                }
                for (; q < kc; q++, dst += 12) {
                    System.arraycopy(a, src + q * cs, ap, dst, 12);
                }
                continue;
            }
            for (int q = 0; q < kc; q++) {
                int col = src + q * cs;
                for (int i = 0; i < mr; i++) {
                    ap[dst++] = a[col + i * rs];
                }
                for (int i = mr; i < MR; i++) {
                    ap[dst++] = 0f;
                }
            }
        }
    }

    /** Twelve rows of kc elements at {@code src} (rows {@code rs} apart) into ap[dst..], column by column. */
    private static void packA12(float[] a, int src, int rs, int kc, float[] ap, int dst) {
        int r0 = src, r1 = r0 + rs, r2 = r1 + rs, r3 = r2 + rs, r4 = r3 + rs, r5 = r4 + rs;
        int r6 = r5 + rs, r7 = r6 + rs, r8 = r7 + rs, r9 = r8 + rs, r10 = r9 + rs, r11 = r10 + rs;
        for (int q = 0; q < kc; q++, dst += 12) {
            ap[dst] = a[r0 + q];
            ap[dst + 1] = a[r1 + q];
            ap[dst + 2] = a[r2 + q];
            ap[dst + 3] = a[r3 + q];
            ap[dst + 4] = a[r4 + q];
            ap[dst + 5] = a[r5 + q];
            ap[dst + 6] = a[r6 + q];
            ap[dst + 7] = a[r7 + q];
            ap[dst + 8] = a[r8 + q];
            ap[dst + 9] = a[r9 + q];
            ap[dst + 10] = a[r10 + q];
            ap[dst + 11] = a[r11 + q];
        }
    }

}
