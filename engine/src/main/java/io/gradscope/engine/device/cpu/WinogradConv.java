package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;

/**
 * A 3x3 convolution with stride 1 and no dilation as Winograd's F(2x2, 3x3) on float32: each 4x4
 * tile of the (padded) input and each 3x3 filter are transformed ({@code V = Bᵀ d B}, {@code U = G g
 * Gᵀ}), the 16 transformed positions are 16 independent products {@code M[ξ] = U[ξ] V[ξ]} ([K × C] by
 * [C × tiles]), and each 4x4 block of M goes back to a 2x2 block of the output ({@code Aᵀ m A}): 16
 * multiplies per channel pair and tile of four outputs instead of 36, so 2.25x fewer than im2col's
 * product, the transforms being adds and halvings of O(C·H·W) work.
 *
 * <p>Note [Winograd's rounding]: the transforms' coefficients are 0, ±1 and ±1/2, so each output is
 * the same sum as the direct convolution's with a few more roundings (the filter's halvings are
 * exact, the input transform adds up to four elements before the products): WinogradConvTest holds
 * each element within 16 float32 roundings of the absolute sum of its terms against float64 direct
 * sums, and WinogradModelTest resnet18's float32 gradients within 4x the im2col run's error.
 *
 * <p>With {@code transposed}, the weight is {@code [C, K, 3, 3]} read as its flipped transpose:
 * {@code conv_transpose2d} with stride 1 and padding p is the correlation with {@code flip(Wᵀ)} and
 * padding 2 − p, which is the convolution's input gradient; negative padding crops.
 */
final class WinogradConv {
    private WinogradConv() {
    }

    /**
     * Fewer tiles than this (all images together) and im2col's one product is faster: the weight's
     * transform (16 values for each 9) is paid once per call whatever the plane's size. resnet18's
     * 3x3 layers, forward plus backward on 2 cores (scripts/bench/conv_ab.sh, least of 7, against
     * im2col): 64 channels at 56x56 (784 tiles) 6.9 against 13.4 ms, 128 at 28x28 (196) 7.4 against
     * 8.2; with the kernel on every size (before the weight gradient took it), 256 at 14x14 (49) 5.2
     * against 4.3, 512 at 7x7 (16) 25.6 against 12.4.
     */
    static final int MIN_TILES = 128;
    /** About this many floats of transformed tiles (all 16 matrices) a block (Note [Blocks of tile rows]): 512 KiB. */
    private static final long BLOCK_ELEMENTS = 1L << 17;
    /** Below this many elements transformed, one thread transforms them all. */
    private static final long PARALLEL_ELEMENTS = 1L << 15;
    /** Below this many flops in the 16 products, one thread runs them all. */
    private static final long PARALLEL_FLOPS = 1L << 18;

    /** The 2x2 output tiles of an [oh, ow] plane, rows and columns of them, and how many in N images. */
    private record Tiles(int rows, int cols, int count) {
        /** Null where there are fewer than {@link #MIN_TILES} (unless {@code anySize}): im2col is faster there. */
        static Tiles of(int n, int oh, int ow, boolean anySize) {
            int rows = (oh + 1) / 2;
            int cols = (ow + 1) / 2;
            int count = Math.multiplyExact(n, rows * cols);
            return count < MIN_TILES && !anySize ? null : new Tiles(rows, cols, count);
        }
    }

    /**
     * y [N, K, H + 2ph − 2, W + 2pw − 2] = x [N, C, H, W] (any strides) correlated with the 3x3
     * weight, or null when either is not float32, the output would be empty, or (unless {@code
     * anySize}) it has fewer than {@link #MIN_TILES} tiles.
     */
    static Tensor conv(Tensor x, Tensor w, boolean transposed, int ph, int pw, boolean anySize) {
        Conv3x3 g = Conv3x3.of(x, w, transposed, ph, pw);
        if (g == null) {
            return null;
        }
        int n = g.n();
        int c = g.c();
        int k = g.k();
        int oh = g.oh();
        int ow = g.ow();
        Tiles t = Tiles.of(n, oh, ow, anySize);
        if (t == null) {
            return null;
        }
        int th = t.rows();
        int tw = t.cols();
        int tiles = t.count();
        // Note [Staggered planes]: the 16 matrices of each transformed array lie an odd number of cache lines
        // apart, not a multiple of 4 KiB: a transform writes (or reads) all 16 at once, and 16 streams in one
        // L1 set thrashed it (the 512-channel weight transform took 20-30 ms instead of 2-3).
        int uPlane = stagger((long) k * c);
        Tensor u = Tensor.empty(DType.FLOAT32, x.device(), 16 * uPlane);
        Tensor y = Tensor.empty(DType.FLOAT32, x.device(), n, k, oh, ow);
        float[] uf = u.storage().floats();
        int uo = u.offset();
        // U[ξ] is [K × C] row-major, or with transposed [C × K] (w's own order, read and written along its rows).
        int rows = w.shape()[0];
        int cols = w.shape()[1];
        spread(rows, 16L * cols, q -> WinogradTransforms.weight(w, transposed, q, uf, uo + q * cols, uPlane));
        int ars = transposed ? 1 : c;
        int acs = transposed ? k : 1;
        // Note [Blocks of tile rows]: each thread takes a block of tile rows through all three steps (x's
        // transform, the 16 products, the output's) on its own scratch, which stays in its cache: the
        // transformed tiles of a whole plane made a round trip through memory between steps, and the
        // transforms were bound by it. resnet18's step in turns with the phase-by-phase version
        // (scripts/bench/step_ab.sh): 0.97, 0.97 and 1.01 of its time on 2 cores, 1.05 on one.
        int rowsAll = n * th;
        int blocks = Math.min(rowsAll, Math.max(2 * CpuThreads.THREADS, (int) (16L * tiles * Math.max(c, k) / BLOCK_ELEMENTS)));
        float[] yf = y.storage().floats();
        int yo = y.offset();
        boolean par = 2L * 16 * k * c * tiles >= PARALLEL_FLOPS;
        CpuThreads.parallelFor(par ? blocks : 1, b -> {
            for (int bb = par ? b : 0; bb < (par ? b + 1 : blocks); bb++) {
                int r0 = (int) ((long) rowsAll * bb / blocks);
                int r1 = (int) ((long) rowsAll * (bb + 1) / blocks);
                block(x, ph, pw, th, tw, r0, r1, c, k, uf, uo, uPlane, ars, acs, yf, yo, oh, ow);
            }
        });
        // Scratch, given back to the allocator's cache for the next call (not left for the collector).
        u.storage().release();
        return y;
    }

    /** Per thread: a block's transformed tiles and products (Note [Blocks of tile rows]). */
    private static final ThreadLocal<float[][]> BLOCK = ThreadLocal.withInitial(() -> new float[2][0]);

    /**
     * Tile rows {@code r0 ≤ r < r1} of all images (row r: image r / th, tile row r % th) through x's
     * transform, the 16 products with U and the output's transform, on the calling thread.
     */
    private static void block(Tensor x, int ph, int pw, int th, int tw, int r0, int r1, int c, int k, float[] uf, int uo,
                              int uPlane, int ars, int acs, float[] yf, int yo, int oh, int ow) {
        int bt = (r1 - r0) * tw;
        int vPlane = stagger((long) c * bt);
        int mPlane = stagger((long) k * bt);
        float[][] scratch = BLOCK.get();
        if (scratch[0].length < 16 * vPlane) {
            scratch[0] = new float[16 * vPlane];
        }
        if (scratch[1].length < 16 * mPlane) {
            scratch[1] = new float[16 * mPlane];
        }
        float[] v = scratch[0];
        float[] m = scratch[1];
        for (int r = r0; r < r1; ) {
            int img = r / th;
            int end = Math.min(r1, (img + 1) * th);
            int at = (r - r0) * tw;
            for (int ch = 0; ch < c; ch++) {
                WinogradTransforms.input(x, img, ch, ph, pw, r - img * th, end - img * th, tw, v, at + ch * bt, vPlane);
            }
            r = end;
        }
        for (int xi = 0; xi < 16; xi++) {
            product(uf, uo + xi * uPlane, ars, acs, v, xi * vPlane, bt, 1, m, xi * mPlane, k, bt, c);
        }
        for (int r = r0; r < r1; ) {
            int img = r / th;
            int end = Math.min(r1, (img + 1) * th);
            int at = (r - r0) * tw;
            for (int q = 0; q < k; q++) {
                WinogradTransforms.output(m, at + q * bt, mPlane, r - img * th, end - img * th, tw, yf,
                        yo + (img * k + q) * oh * ow, oh, ow);
            }
            r = end;
        }
    }

    /**
     * The weight gradient {@code dW [K, C, 3, 3]} of {@link #conv} (not transposed) from x [N, C, H, W]
     * (any strides) and g [N, K, H + 2ph − 2, W + 2pw − 2] (any strides), through the same transforms
     * read backwards: {@code dU[ξ] = D[ξ] V[ξ]ᵀ} with V x's transform and D g's tiles through the
     * adjoint of the output transform ({@code A dy Aᵀ}), then {@code dW = Gᵀ dU G}, summed over the
     * images by the products themselves. Null as {@link #conv}.
     */
    static Tensor weightGrad(Tensor x, Tensor g, int ph, int pw, boolean anySize) {
        if (x.dtype() != DType.FLOAT32 || g.dtype() != DType.FLOAT32 || x.rank() != 4 || g.rank() != 4) {
            return null;
        }
        int[] s = x.shape();
        int n = s[0];
        int c = s[1];
        int k = g.shape()[1];
        int oh = g.shape()[2];
        int ow = g.shape()[3];
        if (oh != s[2] + 2 * ph - 2 || ow != s[3] + 2 * pw - 2 || oh < 1 || ow < 1 || n == 0 || c == 0 || k == 0) {
            return null;
        }
        Tiles t = Tiles.of(n, oh, ow, anySize);
        if (t == null) {
            return null;
        }
        int th = t.rows();
        int tw = t.cols();
        int tiles = t.count();
        int vPlane = stagger((long) c * tiles);
        int dPlane = stagger((long) k * tiles);
        int uPlane = stagger((long) k * c);
        Tensor v = inputTransform(x, ph, pw, th, tw, vPlane);
        Tensor d = Tensor.empty(DType.FLOAT32, x.device(), 16 * dPlane);
        Tensor u = Tensor.empty(DType.FLOAT32, x.device(), 16 * uPlane);
        Tensor dw = Tensor.empty(DType.FLOAT32, x.device(), k, c, 3, 3);
        float[] vf = v.storage().floats();
        int vo = v.offset();
        int perTile = th * tw * 16;
        float[] df = d.storage().floats();
        int dO = d.offset();
        spread(n * k, perTile, p -> WinogradTransforms.outputAdjoint(g, p / k, p % k, th, tw, df,
                dO + (p % k) * tiles + (p / k) * th * tw, dPlane));
        float[] uf = u.storage().floats();
        int uo = u.offset();
        // dU[ξ] (K × C) = D[ξ] (K × tiles) · V[ξ]ᵀ (tiles × C): V read transposed where it lies.
        products(xi -> product(df, dO + xi * dPlane, tiles, 1, vf, vo + xi * vPlane, 1, tiles, uf, uo + xi * uPlane, k, c, tiles),
                2L * 16 * k * c * tiles);
        float[] wf = dw.storage().floats();
        int wo = dw.offset();
        spread(k, 16L * c, q -> WinogradTransforms.weightAdjoint(uf, uo + q * c, uPlane, c, wf, wo + q * c * 9));
        v.storage().release();
        d.storage().release();
        u.storage().release();
        return dw;
    }

    /** x's tiles transformed, {@code V[ξ]} ([C × tiles], images one after another) at {@code ξ·plane}: scratch to release. */
    private static Tensor inputTransform(Tensor x, int ph, int pw, int th, int tw, int plane) {
        int n = x.shape()[0];
        int c = x.shape()[1];
        int tiles = n * th * tw;
        Tensor v = Tensor.empty(DType.FLOAT32, x.device(), 16 * plane);
        float[] vf = v.storage().floats();
        int vo = v.offset();
        spread(n * c, th * tw * 16, p -> WinogradTransforms.input(x, p / c, p % c, ph, pw, th, tw, vf,
                vo + (p % c) * tiles + (p / c) * th * tw, plane));
        return v;
    }

    /** The 16 products {@code product(ξ)} side by side on the pool, one thread each (Note [One pool]), each whole. */
    private static void products(java.util.function.IntConsumer product, long flops) {
        int jobs = flops >= PARALLEL_FLOPS ? 16 : 1;
        CpuThreads.parallelFor(jobs, t -> {
            for (int xi = t; xi < 16; xi += jobs) {
                product.accept(xi);
            }
        });
    }

    /**
     * {@code count} planes on the pool in chunks of about 8 per thread, handed out one by one: a helper
     * that the machine's load stalls leaves the rest of its share to the others (Note [The caller works
     * too]), where one chunk a thread would keep everyone waiting for it.
     */
    private static void spread(int count, long perPlane, java.util.function.IntConsumer plane) {
        int chunks = (long) count * perPlane < PARALLEL_ELEMENTS ? 1 : Math.min(count, 8 * CpuThreads.THREADS);
        CpuThreads.parallelFor(chunks, t -> {
            int p1 = (int) ((long) count * (t + 1) / chunks);
            for (int p = (int) ((long) count * t / chunks); p < p1; p++) {
                plane.accept(p);
            }
        });
    }

    /** {@code n} floats rounded up to whole 64-byte lines, an odd number of them (Note [Staggered planes]). */
    private static int stagger(long n) {
        long lines = (n + 15) / 16;
        return Math.toIntExact(16 * (lines % 2 == 0 ? lines + 1 : lines));
    }

    /** C (m × n, row-major) = A (m × k) B (k × n), operands of any unit-stride layout, on the caller's thread. */
    private static void product(float[] a, int ao, int ars, int acs, float[] b, int bo, int brs, int bcs, float[] c, int co,
                                int m, int n, int k) {
        if (NativeGemm.sgemm(a, ao, ars, acs, b, bo, brs, bcs, c, co, m, n, k, false)) {
            return;
        }
        if (CpuMatmul.VECTOR) {
            VectorGemm.sgemm(a, ao, ars, acs, b, bo, brs, bcs, c, co, 0, m, n, k, false);
        } else {
            CpuMatmul.gemmF(a, ao, ars, acs, b, bo, brs, bcs, c, co, 0, m, n, k);
        }
    }
}
