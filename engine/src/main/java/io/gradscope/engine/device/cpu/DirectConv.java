package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * A 3x3 convolution with stride 1 computed where it lies, with no im2col columns and no transforms:
 * the product {@code Y [K × pixels] = W [K × 9C] · X [9C × pixels]} of im2col, with X's rows read
 * straight from a zero-padded copy of the image.
 *
 * <p>Note [Flat padded rows]: the image is copied once into planes of {@code Hp × Wp} (its padding
 * written as zeros), and the output is computed at the flat positions {@code p = oy·Wp + ox} of that
 * padded width. Window element (dy, dx) of the output at p is then the input at {@code p + dy·Wp +
 * dx}, so a vector of consecutive outputs reads a vector of consecutive inputs for each of the 9C
 * window elements, across row ends too; the outputs at the padding's columns ({@code ox ≥ OW}) are
 * computed and dropped.
 *
 * <p>Note [Six by four]: the micro-kernel is the GEMM's in shape (24 accumulators of the 32
 * registers, each step {@code 6} broadcasts of the packed weights and 4 vector loads of the image
 * for 24 multiply-adds), 6 output channels by four vectors of outputs: a block of weights (6 × 9C)
 * then serves 64 outputs per pass instead of 32, and at 7x7 one pass covers the whole plane. Against
 * 12 by two vectors, in one JVM in turns with the path it replaces (batch 1, 2 cores, AVX-512,
 * OpenBLAS's Haswell kernels; milliseconds, median of 40): 64 channels at 56x56 1.24-1.66 against
 * 1.92 (12 by 2) and Winograd's 1.36-1.89, 128 at 28x28 1.68-1.71 against 1.32-1.36 and 1.69-3.2,
 * 256 at 14x14 1.25-1.29 against 1.36-1.49 and im2col's 1.51-1.67.
 *
 * <p>Note [Which 3x3 kernel]: by default ({@code gradscope.conv=auto}) this kernel, Winograd's or
 * im2col's takes a plane as measured on the machine (Note [Choices by measurement] in
 * KernelChoice); before, a rule took this kernel unless float32 products ran on OpenBLAS's own
 * AVX-512 kernels, from figures like these. The same CPU (AMD EPYC, AVX-512, 2 cores, batch 1, milliseconds, median
 * of 40 in turns in one JVM) with OpenBLAS's AVX2 kernels, direct against im2col and Winograd: 64
 * channels at 56x56 2.04 against 3.34 and 2.34; 128 at 28x28 1.32 against 1.90 and 2.24; 256 at
 * 14x14 1.60 against 1.89 and 3.67; 512 at 7x7 2.44 against 2.08 and 9.34 (inside resnet18's step
 * the direct kernel on 7x7 too was ahead: 0.940 of the step against 0.964 without it, pairs of
 * steps). With OPENBLAS_CORETYPE=SkylakeX: 2.00 against 1.40 and 1.42; 1.87 against 1.88 and 2.94;
 * 1.63 against 1.37 and 2.70; 2.29 against 1.46 and 8.28, so there Winograd's from 128 tiles and
 * im2col's below were faster; another Zen 5 the same week disagreed.
 *
 * <p>Note [Weights in place]: packing the weight costs a pass over it, and from 256 channels the
 * weight (2.4 MB at 256, 9.4 MB at 512) no longer sits in the caches, so the pass reads it from memory
 * and the kernel reads the packed copy from memory again. The convolution's own weight {@code [K, C,
 * 3, 3]} has each output channel's 9C values in a row, so from 2^19 values the kernel reads its 6
 * rows where they lie: 6 sequential streams. Alone (2 cores, median of 60, packed against in place):
 * 512 channels at 7x7 1.96-2.29 against 0.94-1.23 ms, 256 at 14x14 1.15-1.37 against 1.03-1.25; in
 * resnet18's step 0.956 of the packed step's time (step_ab.sh, 50 pairs). The transposed read (the
 * input gradient) stays packed: its rows are 9 values apart and each channel's block lies 9K values
 * from the next, and in place it was slower, 3.2-3.8 against 2.45-2.65 ms at 512.
 *
 * <p>The padding is multiplied like any element: with an infinite weight, an output whose window
 * reaches into the padding is NaN (0 · ∞). PyTorch's input gradient, and im2col's (whose col2im
 * drops the columns that land in the padding), are finite there; Winograd's transforms give NaN
 * too.
 *
 * <p>Only with 16-lane vectors (AVX-512): the 24 accumulators need its 32 registers. With {@code
 * transposed}, the weight {@code [C, K, 3, 3]} is read as its flipped transpose, as {@link
 * WinogradConv} does (conv_transpose2d with stride 1, the convolution's input gradient).
 */
final class DirectConv {
    private DirectConv() {
    }

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int L = FS.length();
    /** Output channels per block: the kernel's rows (Note [Six by four]). */
    private static final int MR = 6;
    /** Flat outputs per kernel call: four vectors. */
    private static final int NB = 4 * L;
    /** Kernel calls (of NB outputs) per task on the pool. */
    private static final int PER_TASK = 4;
    /** Below this many multiply-adds, one thread runs it all. */
    private static final long PARALLEL_FMAS = 1L << 17;

    /** Whether this machine's vectors are wide enough for the kernel. */
    static boolean available() {
        return L >= 16;
    }

    /**
     * y [N, K, H + 2ph − 2, W + 2pw − 2] = x [N, C, H, W] (any strides) correlated with the 3x3 weight
     * ({@code [K, C, 3, 3]}, or {@code [C, K, 3, 3]} flipped with {@code transposed}), padding 0 to 2;
     * null where this kernel does not apply (not float32, other padding, narrow vectors, an empty
     * image or output).
     */
    static Tensor conv(Tensor x, Tensor w, boolean transposed, int ph, int pw) {
        return conv(x, w, transposed, ph, pw, null);
    }

    /** {@link #conv}, the weight packed (false), read in place (true) or as chosen for its size (null). */
    static Tensor conv(Tensor x, Tensor w, boolean transposed, int ph, int pw, Boolean weightsInPlace) {
        Conv3x3 g = available() && ph >= 0 && pw >= 0 && ph <= 2 && pw <= 2 ? Conv3x3.of(x, w, transposed, ph, pw) : null;
        // An empty image (zero rows or columns, its output all padding) is left to the other paths.
        if (g == null || g.h() == 0 || g.w() == 0) {
            return null;
        }
        int n = g.n();
        int c = g.c();
        int h = g.h();
        int wd = g.w();
        int k = g.k();
        int oh = g.oh();
        int ow = g.ow();
        int hp = h + 2 * ph;
        int wp = wd + 2 * pw;
        // Scratch beyond an array's reach is left to the other paths (which report what does not fit).
        long kr = (k + (long) MR - 1) / MR * MR;
        long flatL = ((long) oh * wp + NB - 1) / NB * NB;
        if ((long) c * hp * wp + NB + 2 > Conv3x3.MAX_ELEMENTS || kr * flatL > Conv3x3.MAX_ELEMENTS
                || kr * 9 * c > Conv3x3.MAX_ELEMENTS) {
            return null;
        }
        int plane = Math.multiplyExact(hp, wp);
        int flat = oh * wp;
        int blocksP = (flat + NB - 1) / NB;
        int flatPad = blocksP * NB;
        int kb = (k + MR - 1) / MR;
        int kc = Math.multiplyExact(9, c);
        boolean inPlace = weightsInPlace != null ? weightsInPlace : inPlace(transposed, k, kc);
        Tensor packed = inPlace ? null : Tensor.empty(DType.FLOAT32, x.device(), Math.multiplyExact(kb * MR, kc));
        float[] a = inPlace ? w.storage().floats() : packed.storage().floats();
        int ao = inPlace ? 0 : packed.offset();
        if (!inPlace) {
            packWeights(w, transposed, k, c, kb, a, ao);
        }
        WeightReads rd = WeightReads.of(w, transposed);
        int[] woff = inPlace ? rd.offsets(c) : null;
        int rs = rd.rs();
        int[] offs = windowOffsets(c, plane, wp, 1, 0);
        Tensor y = Tensor.empty(DType.FLOAT32, x.device(), n, k, oh, ow);
        float[] yf = y.storage().floats();
        int yo = y.offset();
        // The last vector reads up to NB + 2 past the last plane's end (outputs that are dropped).
        int padded = Math.addExact(Math.multiplyExact(c, plane), NB + 2);
        Tensor xpt = Tensor.empty(DType.FLOAT32, x.device(), padded);
        Tensor outt = Tensor.empty(DType.FLOAT32, x.device(), Math.multiplyExact(kb * MR, flatPad));
        float[] xp = xpt.storage().floats();
        float[] out = outt.storage().floats();
        int tasksP = (blocksP + PER_TASK - 1) / PER_TASK;
        int tasks = (long) k * kc * flatPad < PARALLEL_FMAS ? 1 : kb * tasksP;
        for (int img = 0; img < n; img++) {
            pad(x, img, ph, pw, hp, wp, xp, 0, padded);
            CpuThreads.parallelFor(tasks, t -> {
                int t0 = tasks == 1 ? 0 : t;
                int t1 = tasks == 1 ? kb * tasksP : t + 1;
                for (int u = t0; u < t1; u++) {
                    int b = u / tasksP;
                    int p1 = Math.min(blocksP, (u % tasksP + 1) * PER_TASK);
                    for (int pb = (u % tasksP) * PER_TASK; pb < p1; pb++) {
                        if (inPlace) {
                            int last = Math.min(MR, k - b * MR) - 1;
                            kernelInPlace(kc, a, w.offset() + b * MR * rs, woff, rs, last, xp, pb * NB, offs, out, b * MR * flatPad + pb * NB, flatPad);
                        } else {
                            kernel(kc, a, ao + b * MR * kc, xp, pb * NB, offs, out, b * MR * flatPad + pb * NB, flatPad);
                        }
                    }
                }
            });
            for (int q = 0; q < k; q++) {
                for (int r = 0; r < oh; r++) {
                    System.arraycopy(out, q * flatPad + r * wp, yf, yo + ((img * k + q) * oh + r) * ow, ow);
                }
            }
        }
        // Scratch, given back to the allocator's cache for the next call (not left for the collector).
        if (packed != null) {
            packed.storage().release();
        }
        xpt.storage().release();
        outt.storage().release();
        return y;
    }

    /**
     * Whether the weight is read where it lies instead of packed: Note [Weights in place]. Only the
     * convolution's own weight ([K, C, 3, 3], rows of 9C in a row), and only from 2^19 of them.
     */
    static boolean inPlace(boolean transposed, int k, int kc) {
        return !transposed && (long) k * kc >= IN_PLACE_WEIGHTS;
    }

    private static final long IN_PLACE_WEIGHTS = 1L << 19;

    /**
     * Where window element (ci, dy, dx) of a row of the (flipped transposed, with {@code transposed})
     * weight lies, from the row's start: {@code corner + ci·cs + dy·ys + dx·xs}; consecutive rows are
     * {@code rs} apart.
     */
    private record WeightReads(int rs, int cs, int ys, int xs, int corner) {
        static WeightReads of(Tensor w, boolean transposed) {
            int[] st = w.strides();
            return transposed ? new WeightReads(st[1], st[0], -st[2], -st[3], 2 * st[2] + 2 * st[3])
                    : new WeightReads(st[0], st[1], st[2], st[3], 0);
        }

        int at(int ci, int dy, int dx) {
            return corner + ci * cs + dy * ys + dx * xs;
        }

        /** at(ci, dy, dx) for q = 9·ci + 3·dy + dx. */
        int[] offsets(int c) {
            return windowOffsets(c, cs, ys, xs, corner);
        }
    }

    /**
     * {@code corner + ci·cs + dy·ys + dx·xs} for window element q = 9·ci + 3·dy + dx of c channels:
     * where each of the 9C elements lies in the padded image's planes (cs the plane, ys its row) or in a
     * weight's row.
     */
    static int[] windowOffsets(int c, int cs, int ys, int xs, int corner) {
        int[] offs = new int[9 * c];
        for (int ci = 0, q = 0; ci < c; ci++) {
            for (int dy = 0; dy < 3; dy++) {
                for (int dx = 0; dx < 3; dx++) {
                    offs[q++] = corner + ci * cs + dy * ys + dx * xs;
                }
            }
        }
        return offs;
    }

    /** The weight as kb blocks of MR output channels, each 9C steps of MR values (zero past K), into a from ao. */
    private static void packWeights(Tensor w, boolean transposed, int k, int c, int kb, float[] a, int ao) {
        float[] wf = w.storage().floats();
        int wo = w.offset();
        int kc = 9 * c;
        WeightReads rd = WeightReads.of(w, transposed);
        boolean par = (long) k * kc >= (1 << 15);
        CpuThreads.parallelFor(par ? kb : 1, t -> {
            for (int b = par ? t : 0; b < (par ? t + 1 : kb); b++) {
                int base = ao + b * MR * kc;
                int rows = Math.min(MR, k - b * MR);
                if (rows < MR) {
                    java.util.Arrays.fill(a, base, base + MR * kc, 0f);
                }
                // By input channel: its 9 values of the block's rows lie together in w either way.
                for (int ci = 0; ci < c; ci++) {
                    for (int r = 0; r < rows; r++) {
                        int src = wo + (b * MR + r) * rd.rs();
                        int dst = base + 9 * MR * ci + r;
                        for (int dy = 0; dy < 3; dy++) {
                            for (int dx = 0; dx < 3; dx++) {
                                a[dst + (3 * dy + dx) * MR] = wf[src + rd.at(ci, dy, dx)];
                            }
                        }
                    }
                }
            }
        });
    }

    /**
     * Image img of x into xp's planes of hp × wp from xp[at], its border of ph rows and pw columns (and xp
     * up to at + used) zero.
     */
    static void pad(Tensor x, int img, int ph, int pw, int hp, int wp, float[] xp, int at, int used) {
        int[] s = x.shape();
        int[] st = x.strides();
        float[] xf = x.storage().floats();
        int c = s[1];
        int h = s[2];
        int wd = s[3];
        int plane = hp * wp;
        java.util.Arrays.fill(xp, at, at + used, 0f);
        Im2colKernels.planes(c, (long) plane, ci -> {
            int src = x.offset() + img * st[0] + ci * st[1];
            int dst = at + ci * plane + ph * wp + pw;
            for (int r = 0; r < h; r++, src += st[2], dst += wp) {
                if (st[3] == 1) {
                    System.arraycopy(xf, src, xp, dst, wd);
                } else {
                    for (int q = 0; q < wd; q++) {
                        xp[dst + q] = xf[src + q * st[3]];
                    }
                }
            }
        });
    }

    /**
     * out[r·ldc + j] = Σ_q a[ao + q·MR + r] · xp[xo + offs[q] + j] for r < MR, j < NB: the GEMM's
     * micro-kernel (Note [Flat padded rows]) with B's four vectors read at the window element's offset.
     */
    // BEGIN GENERATED directKernel (MicroKernels, engine tests: edit it, not this method)
    private static void kernel(int kc, float[] a, int ao, float[] xp, int xo, int[] offs, float[] out, int co, int ldc) {
        FloatVector c0_0 = FloatVector.zero(FS); FloatVector c0_1 = FloatVector.zero(FS); FloatVector c0_2 = FloatVector.zero(FS); FloatVector c0_3 = FloatVector.zero(FS);
        FloatVector c1_0 = FloatVector.zero(FS); FloatVector c1_1 = FloatVector.zero(FS); FloatVector c1_2 = FloatVector.zero(FS); FloatVector c1_3 = FloatVector.zero(FS);
        FloatVector c2_0 = FloatVector.zero(FS); FloatVector c2_1 = FloatVector.zero(FS); FloatVector c2_2 = FloatVector.zero(FS); FloatVector c2_3 = FloatVector.zero(FS);
        FloatVector c3_0 = FloatVector.zero(FS); FloatVector c3_1 = FloatVector.zero(FS); FloatVector c3_2 = FloatVector.zero(FS); FloatVector c3_3 = FloatVector.zero(FS);
        FloatVector c4_0 = FloatVector.zero(FS); FloatVector c4_1 = FloatVector.zero(FS); FloatVector c4_2 = FloatVector.zero(FS); FloatVector c4_3 = FloatVector.zero(FS);
        FloatVector c5_0 = FloatVector.zero(FS); FloatVector c5_1 = FloatVector.zero(FS); FloatVector c5_2 = FloatVector.zero(FS); FloatVector c5_3 = FloatVector.zero(FS);
        for (int q = 0; q < kc; q++) {
            int at = xo + offs[q];
            FloatVector b0 = FloatVector.fromArray(FS, xp, at);
            FloatVector b1 = FloatVector.fromArray(FS, xp, at + 1 * L);
            FloatVector b2 = FloatVector.fromArray(FS, xp, at + 2 * L);
            FloatVector b3 = FloatVector.fromArray(FS, xp, at + 3 * L);
            int p = ao + q * MR;
            FloatVector x;
            x = FloatVector.broadcast(FS, a[p]);
            c0_0 = b0.fma(x, c0_0);
            c0_1 = b1.fma(x, c0_1);
            c0_2 = b2.fma(x, c0_2);
            c0_3 = b3.fma(x, c0_3);
            x = FloatVector.broadcast(FS, a[p + 1]);
            c1_0 = b0.fma(x, c1_0);
            c1_1 = b1.fma(x, c1_1);
            c1_2 = b2.fma(x, c1_2);
            c1_3 = b3.fma(x, c1_3);
            x = FloatVector.broadcast(FS, a[p + 2]);
            c2_0 = b0.fma(x, c2_0);
            c2_1 = b1.fma(x, c2_1);
            c2_2 = b2.fma(x, c2_2);
            c2_3 = b3.fma(x, c2_3);
            x = FloatVector.broadcast(FS, a[p + 3]);
            c3_0 = b0.fma(x, c3_0);
            c3_1 = b1.fma(x, c3_1);
            c3_2 = b2.fma(x, c3_2);
            c3_3 = b3.fma(x, c3_3);
            x = FloatVector.broadcast(FS, a[p + 4]);
            c4_0 = b0.fma(x, c4_0);
            c4_1 = b1.fma(x, c4_1);
            c4_2 = b2.fma(x, c4_2);
            c4_3 = b3.fma(x, c4_3);
            x = FloatVector.broadcast(FS, a[p + 5]);
            c5_0 = b0.fma(x, c5_0);
            c5_1 = b1.fma(x, c5_1);
            c5_2 = b2.fma(x, c5_2);
            c5_3 = b3.fma(x, c5_3);
        }
        c0_0.intoArray(out, co);
        c0_1.intoArray(out, co + 1 * L);
        c0_2.intoArray(out, co + 2 * L);
        c0_3.intoArray(out, co + 3 * L);
        co += ldc;
        c1_0.intoArray(out, co);
        c1_1.intoArray(out, co + 1 * L);
        c1_2.intoArray(out, co + 2 * L);
        c1_3.intoArray(out, co + 3 * L);
        co += ldc;
        c2_0.intoArray(out, co);
        c2_1.intoArray(out, co + 1 * L);
        c2_2.intoArray(out, co + 2 * L);
        c2_3.intoArray(out, co + 3 * L);
        co += ldc;
        c3_0.intoArray(out, co);
        c3_1.intoArray(out, co + 1 * L);
        c3_2.intoArray(out, co + 2 * L);
        c3_3.intoArray(out, co + 3 * L);
        co += ldc;
        c4_0.intoArray(out, co);
        c4_1.intoArray(out, co + 1 * L);
        c4_2.intoArray(out, co + 2 * L);
        c4_3.intoArray(out, co + 3 * L);
        co += ldc;
        c5_0.intoArray(out, co);
        c5_1.intoArray(out, co + 1 * L);
        c5_2.intoArray(out, co + 2 * L);
        c5_3.intoArray(out, co + 3 * L);
    }
    // END GENERATED directKernel

    /**
     * {@link #kernel} with the weight read where it lies (Note [Weights in place]): row r's value of
     * window element q at {@code a[ao + woff[q] + min(r, last)·rs]}, rows past {@code last} (past K)
     * reading the last row again, their outputs dropped. A twin, not a generalization: the packed
     * kernel run through an offset table ({@code woff[q] = q·MR}) was about a tenth slower.
     */
    // BEGIN GENERATED directKernelInPlace (MicroKernels, engine tests: edit it, not this method)
    private static void kernelInPlace(int kc, float[] a, int ao, int[] woff, int rs, int last, float[] xp, int xo, int[] offs, float[] out, int co, int ldc) {
        FloatVector c0_0 = FloatVector.zero(FS); FloatVector c0_1 = FloatVector.zero(FS); FloatVector c0_2 = FloatVector.zero(FS); FloatVector c0_3 = FloatVector.zero(FS);
        FloatVector c1_0 = FloatVector.zero(FS); FloatVector c1_1 = FloatVector.zero(FS); FloatVector c1_2 = FloatVector.zero(FS); FloatVector c1_3 = FloatVector.zero(FS);
        FloatVector c2_0 = FloatVector.zero(FS); FloatVector c2_1 = FloatVector.zero(FS); FloatVector c2_2 = FloatVector.zero(FS); FloatVector c2_3 = FloatVector.zero(FS);
        FloatVector c3_0 = FloatVector.zero(FS); FloatVector c3_1 = FloatVector.zero(FS); FloatVector c3_2 = FloatVector.zero(FS); FloatVector c3_3 = FloatVector.zero(FS);
        FloatVector c4_0 = FloatVector.zero(FS); FloatVector c4_1 = FloatVector.zero(FS); FloatVector c4_2 = FloatVector.zero(FS); FloatVector c4_3 = FloatVector.zero(FS);
        FloatVector c5_0 = FloatVector.zero(FS); FloatVector c5_1 = FloatVector.zero(FS); FloatVector c5_2 = FloatVector.zero(FS); FloatVector c5_3 = FloatVector.zero(FS);
        int r1 = Math.min(1, last) * rs;
        int r2 = Math.min(2, last) * rs;
        int r3 = Math.min(3, last) * rs;
        int r4 = Math.min(4, last) * rs;
        int r5 = Math.min(5, last) * rs;
        for (int q = 0; q < kc; q++) {
            int at = xo + offs[q];
            FloatVector b0 = FloatVector.fromArray(FS, xp, at);
            FloatVector b1 = FloatVector.fromArray(FS, xp, at + 1 * L);
            FloatVector b2 = FloatVector.fromArray(FS, xp, at + 2 * L);
            FloatVector b3 = FloatVector.fromArray(FS, xp, at + 3 * L);
            int p = ao + woff[q];
            FloatVector x;
            x = FloatVector.broadcast(FS, a[p]);
            c0_0 = b0.fma(x, c0_0);
            c0_1 = b1.fma(x, c0_1);
            c0_2 = b2.fma(x, c0_2);
            c0_3 = b3.fma(x, c0_3);
            x = FloatVector.broadcast(FS, a[p + r1]);
            c1_0 = b0.fma(x, c1_0);
            c1_1 = b1.fma(x, c1_1);
            c1_2 = b2.fma(x, c1_2);
            c1_3 = b3.fma(x, c1_3);
            x = FloatVector.broadcast(FS, a[p + r2]);
            c2_0 = b0.fma(x, c2_0);
            c2_1 = b1.fma(x, c2_1);
            c2_2 = b2.fma(x, c2_2);
            c2_3 = b3.fma(x, c2_3);
            x = FloatVector.broadcast(FS, a[p + r3]);
            c3_0 = b0.fma(x, c3_0);
            c3_1 = b1.fma(x, c3_1);
            c3_2 = b2.fma(x, c3_2);
            c3_3 = b3.fma(x, c3_3);
            x = FloatVector.broadcast(FS, a[p + r4]);
            c4_0 = b0.fma(x, c4_0);
            c4_1 = b1.fma(x, c4_1);
            c4_2 = b2.fma(x, c4_2);
            c4_3 = b3.fma(x, c4_3);
            x = FloatVector.broadcast(FS, a[p + r5]);
            c5_0 = b0.fma(x, c5_0);
            c5_1 = b1.fma(x, c5_1);
            c5_2 = b2.fma(x, c5_2);
            c5_3 = b3.fma(x, c5_3);
        }
        c0_0.intoArray(out, co);
        c0_1.intoArray(out, co + 1 * L);
        c0_2.intoArray(out, co + 2 * L);
        c0_3.intoArray(out, co + 3 * L);
        co += ldc;
        c1_0.intoArray(out, co);
        c1_1.intoArray(out, co + 1 * L);
        c1_2.intoArray(out, co + 2 * L);
        c1_3.intoArray(out, co + 3 * L);
        co += ldc;
        c2_0.intoArray(out, co);
        c2_1.intoArray(out, co + 1 * L);
        c2_2.intoArray(out, co + 2 * L);
        c2_3.intoArray(out, co + 3 * L);
        co += ldc;
        c3_0.intoArray(out, co);
        c3_1.intoArray(out, co + 1 * L);
        c3_2.intoArray(out, co + 2 * L);
        c3_3.intoArray(out, co + 3 * L);
        co += ldc;
        c4_0.intoArray(out, co);
        c4_1.intoArray(out, co + 1 * L);
        c4_2.intoArray(out, co + 2 * L);
        c4_3.intoArray(out, co + 3 * L);
        co += ldc;
        c5_0.intoArray(out, co);
        c5_1.intoArray(out, co + 1 * L);
        c5_2.intoArray(out, co + 2 * L);
        c5_3.intoArray(out, co + 3 * L);
    }
    // END GENERATED directKernelInPlace
}
