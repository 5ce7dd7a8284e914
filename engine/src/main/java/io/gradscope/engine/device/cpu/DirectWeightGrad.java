package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The weight gradient of a 3x3 convolution with stride 1, computed where its inputs lie (no im2col
 * columns, no Winograd transforms): {@code dW[k, ci, dy, dx] = Σ_img Σ_(oy, ox) g[img, k, oy, ox] ·
 * xp[img, ci, (oy + dy)·Wp + ox + dx]}, xp the image with its zero padding (as in {@link DirectConv},
 * Note [Flat padded rows], but summed over the output's own positions only: no product with the
 * padding's columns, whose values would otherwise reach the sum as 0 · x).
 *
 * <p>Note [Vectors along channels]: the sum runs along p, the one axis both operands have contiguous,
 * so vectors along it would each end in a horizontal sum. Instead g is laid out transposed once,
 * {@code gt[oy·OW + ox][k]} (K rounded up to 64), and the micro-kernel is the GEMM's: 6 window elements by
 * four vectors of output channels, each position p 4 vector reads of gt's row and 6 broadcasts, from
 * 6 sequential streams of the padded image, for 24 multiply-adds. A task computes 8 such tiles (48
 * window elements by 64 channels) into a buffer, output rows in blocks of about {@value #PB}
 * positions so that the block of gt (128 KB) stays in L2 for the 8 tiles, and writes the buffer transposed into dW's rows.
 * The positions run as one loop with the row's end stepped over (as two nested loops C2 kept the
 * vectors boxed: 8 GFLOP/s).
 *
 * <p>Note [Small planes]: writing the buffer into dW's rows is a scalar transpose, about one cycle
 * per element of dW, while each element's products number the output positions. At 7x7 (49
 * positions) that write is as long as the products, and the kernel was level with im2col's product
 * (512 channels: 2.17 against 2.09 ms); from 14x14 it is well ahead. Alone (2 cores, median of 60,
 * batch 1; direct against im2col's and Winograd's, ms): 64 channels at 56x56 1.03 against 1.91 and
 * 2.44; 128 at 28x28 0.94 against 1.66 and 2.45; 256 at 14x14 1.08 against 1.64 (Winograd's declines
 * fewer than 128 tiles). In resnet18's step, 0.932 of the step without it (step_ab.sh, 50 pairs). So
 * the backend's own choice takes it from {@link #MIN_POSITIONS} output positions (images times plane).
 */
final class DirectWeightGrad {
    private DirectWeightGrad() {
    }

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int L = FS.length();
    /** Window elements per tile: the kernel's broadcasts. */
    private static final int MR = 6;
    /** Output channels per tile: four vectors. */
    private static final int KB = 4 * L;
    /** Tiles per task. */
    private static final int TILES = 8;
    /** Positions per block of gt. */
    private static final int PB = 512;
    /** Below this many output positions (images times plane), the auto choice leaves the gradient to im2col: Note [Small planes]. */
    static final int MIN_POSITIONS = 128;
    private static final ThreadLocal<float[]> BUFFERS = ThreadLocal.withInitial(() -> new float[TILES * MR * KB]);

    /**
     * dW [K, C, 3, 3] of the correlation of x [N, C, H, W] with padding (ph, pw) (0 to 2), from its
     * output's gradient g [N, K, H + 2ph − 2, W + 2pw − 2] (any strides); null where this kernel does
     * not apply (not float32, narrow vectors, other shapes, an empty image, scratch that does not
     * {@link #fits}) and, unless {@code anySize}, below {@link #MIN_POSITIONS} output positions.
     */
    static Tensor weightGrad(Tensor x, Tensor g, int ph, int pw, boolean anySize) {
        if (!DirectConv.available() || x.dtype() != DType.FLOAT32 || g.dtype() != DType.FLOAT32 || x.rank() != 4 || g.rank() != 4
                || ph < 0 || pw < 0 || ph > 2 || pw > 2) {
            return null;
        }
        int[] s = x.shape();
        int n = s[0];
        int c = s[1];
        int h = s[2];
        int wd = s[3];
        int k = g.shape()[1];
        int oh = g.shape()[2];
        int ow = g.shape()[3];
        if (g.shape()[0] != n || oh != h + 2 * ph - 2 || ow != wd + 2 * pw - 2 || oh < 1 || ow < 1 || n == 0 || c == 0 || k == 0
                || h == 0 || wd == 0 || !anySize && (long) n * oh * ow < MIN_POSITIONS) {
            return null;
        }
        int hp = h + 2 * ph;
        int wp = wd + 2 * pw;
        if (!fits(n, c, hp, wp, oh, ow, k, anySize)) {
            return null;
        }
        int plane = Math.multiplyExact(hp, wp);
        int pos = Math.multiplyExact(oh, ow);
        int kc = Math.multiplyExact(9, c);
        int kp = (k + KB - 1) / KB * KB;
        int imageX = Math.multiplyExact(c, plane);
        int imageG = Math.multiplyExact(pos, kp);
        Tensor xpt = Tensor.empty(DType.FLOAT32, x.device(), Math.multiplyExact(n, imageX));
        Tensor gtt = Tensor.empty(DType.FLOAT32, x.device(), Math.multiplyExact(n, imageG));
        float[] xp = xpt.storage().floats();
        float[] gt = gtt.storage().floats();
        for (int img = 0; img < n; img++) {
            DirectConv.pad(x, img, ph, pw, hp, wp, xp, img * imageX, imageX);
        }
        transpose(g, kp, gt);
        int[] offs = DirectConv.windowOffsets(c, plane, wp, 1, 0);
        Tensor dw = Tensor.empty(DType.FLOAT32, x.device(), k, c, 3, 3);
        float[] dwf = dw.storage().floats();
        int dwo = dw.offset();
        int chunk = TILES * MR;
        int chunks = (kc + chunk - 1) / chunk;
        int kBlocks = kp / KB;
        int rowsPerBlock = Math.max(1, PB / ow);
        CpuThreads.parallelFor(kBlocks * chunks, t -> {
            int kb = t % kBlocks;
            int q0 = t / kBlocks * chunk;
            int tiles = Math.min(TILES, (kc - q0 + MR - 1) / MR);
            float[] buf = BUFFERS.get();
            Arrays.fill(buf, 0f);
            for (int img = 0; img < n; img++) {
                for (int y0 = 0; y0 < oh; y0 += rowsPerBlock) {
                    int y1 = Math.min(oh, y0 + rowsPerBlock);
                    for (int u = 0; u < tiles; u++) {
                        int q = q0 + u * MR;
                        // Past the last window element, a tile reads the last one again; those rows are dropped.
                        int xo = img * imageX;
                        kernel(y0, y1, ow, wp, xp, xo + offs[Math.min(q, kc - 1)], xo + offs[Math.min(q + 1, kc - 1)],
                                xo + offs[Math.min(q + 2, kc - 1)], xo + offs[Math.min(q + 3, kc - 1)], xo + offs[Math.min(q + 4, kc - 1)],
                                xo + offs[Math.min(q + 5, kc - 1)], gt, img * imageG + kb * KB, kp, buf, u * MR * KB);
                    }
                }
            }
            int qs = Math.min(chunk, kc - q0);
            int ks = Math.min(KB, k - kb * KB);
            for (int kk = 0; kk < ks; kk++) {
                int row = dwo + (kb * KB + kk) * kc + q0;
                for (int j = 0; j < qs; j++) {
                    dwf[row + j] = buf[j * KB + kk];
                }
            }
        });
        xpt.storage().release();
        gtt.storage().release();
        return dw;
    }

    /**
     * Whether the scratch fits: the padded images and the transposed g each within an array's
     * reach, and, unless {@code anySize}, the transposed g at most twice g's size (K rounded up to
     * 64, so from 32 output channels: with fewer, im2col's columns are the smaller copy).
     */
    static boolean fits(int n, int c, int hp, int wp, int oh, int ow, int k, boolean anySize) {
        long kp = (k + (long) KB - 1) / KB * KB;
        return (long) n * c * hp * wp <= Conv3x3.MAX_ELEMENTS && (long) n * oh * ow * kp <= Conv3x3.MAX_ELEMENTS && (anySize || kp <= 2L * k);
    }

    /** g [N, K, OH, OW] into gt's rows gt[((img·OH + oy)·OW + ox)·kp + k], zero at k ≥ K. */
    private static void transpose(Tensor g, int kp, float[] gt) {
        int[] s = g.shape();
        int[] st = g.strides();
        float[] gf = g.storage().floats();
        int n = s[0];
        int k = s[1];
        int oh = s[2];
        int ow = s[3];
        Im2colKernels.planes(n * oh, (long) ow * kp, r -> {
            int img = r / oh;
            int oy = r % oh;
            int dst = r * ow * kp;
            if (k < kp) {
                Arrays.fill(gt, dst, dst + ow * kp, 0f);
            }
            for (int kk = 0; kk < k; kk++) {
                int src = g.offset() + img * st[0] + kk * st[1] + oy * st[2];
                for (int ox = 0; ox < ow; ox++) {
                    gt[dst + ox * kp + kk] = gf[src + ox * st[3]];
                }
            }
        });
    }

    /**
     * buf[bo + j·KB + v] += Σ_{y0 ≤ oy < y1, ox < ow} xp[aj + oy·wp + ox] · gt[go + (oy·ow + ox)·kp + v]
     * for j < 6, v < KB.
     */
    private static void kernel(int y0, int y1, int ow, int wp, float[] xp, int a0, int a1, int a2, int a3, int a4, int a5,
            float[] gt, int go, int kp, float[] buf, int bo) {
        FloatVector c0_0 = FloatVector.fromArray(FS, buf, bo + 0 * KB + 0 * L); FloatVector c0_1 = FloatVector.fromArray(FS, buf, bo + 0 * KB + 1 * L); FloatVector c0_2 = FloatVector.fromArray(FS, buf, bo + 0 * KB + 2 * L); FloatVector c0_3 = FloatVector.fromArray(FS, buf, bo + 0 * KB + 3 * L);
        FloatVector c1_0 = FloatVector.fromArray(FS, buf, bo + 1 * KB + 0 * L); FloatVector c1_1 = FloatVector.fromArray(FS, buf, bo + 1 * KB + 1 * L); FloatVector c1_2 = FloatVector.fromArray(FS, buf, bo + 1 * KB + 2 * L); FloatVector c1_3 = FloatVector.fromArray(FS, buf, bo + 1 * KB + 3 * L);
        FloatVector c2_0 = FloatVector.fromArray(FS, buf, bo + 2 * KB + 0 * L); FloatVector c2_1 = FloatVector.fromArray(FS, buf, bo + 2 * KB + 1 * L); FloatVector c2_2 = FloatVector.fromArray(FS, buf, bo + 2 * KB + 2 * L); FloatVector c2_3 = FloatVector.fromArray(FS, buf, bo + 2 * KB + 3 * L);
        FloatVector c3_0 = FloatVector.fromArray(FS, buf, bo + 3 * KB + 0 * L); FloatVector c3_1 = FloatVector.fromArray(FS, buf, bo + 3 * KB + 1 * L); FloatVector c3_2 = FloatVector.fromArray(FS, buf, bo + 3 * KB + 2 * L); FloatVector c3_3 = FloatVector.fromArray(FS, buf, bo + 3 * KB + 3 * L);
        FloatVector c4_0 = FloatVector.fromArray(FS, buf, bo + 4 * KB + 0 * L); FloatVector c4_1 = FloatVector.fromArray(FS, buf, bo + 4 * KB + 1 * L); FloatVector c4_2 = FloatVector.fromArray(FS, buf, bo + 4 * KB + 2 * L); FloatVector c4_3 = FloatVector.fromArray(FS, buf, bo + 4 * KB + 3 * L);
        FloatVector c5_0 = FloatVector.fromArray(FS, buf, bo + 5 * KB + 0 * L); FloatVector c5_1 = FloatVector.fromArray(FS, buf, bo + 5 * KB + 1 * L); FloatVector c5_2 = FloatVector.fromArray(FS, buf, bo + 5 * KB + 2 * L); FloatVector c5_3 = FloatVector.fromArray(FS, buf, bo + 5 * KB + 3 * L);
        int i1 = (y1 - y0) * ow;
        for (int i = 0, p = y0 * wp, at = go + y0 * ow * kp, ox = 0; i < i1; i++, at += kp) {
            FloatVector b0 = FloatVector.fromArray(FS, gt, at);
            FloatVector b1 = FloatVector.fromArray(FS, gt, at + 1 * L);
            FloatVector b2 = FloatVector.fromArray(FS, gt, at + 2 * L);
            FloatVector b3 = FloatVector.fromArray(FS, gt, at + 3 * L);
            FloatVector v;
            v = FloatVector.broadcast(FS, xp[a0 + p]);
            c0_0 = b0.fma(v, c0_0);
            c0_1 = b1.fma(v, c0_1);
            c0_2 = b2.fma(v, c0_2);
            c0_3 = b3.fma(v, c0_3);
            v = FloatVector.broadcast(FS, xp[a1 + p]);
            c1_0 = b0.fma(v, c1_0);
            c1_1 = b1.fma(v, c1_1);
            c1_2 = b2.fma(v, c1_2);
            c1_3 = b3.fma(v, c1_3);
            v = FloatVector.broadcast(FS, xp[a2 + p]);
            c2_0 = b0.fma(v, c2_0);
            c2_1 = b1.fma(v, c2_1);
            c2_2 = b2.fma(v, c2_2);
            c2_3 = b3.fma(v, c2_3);
            v = FloatVector.broadcast(FS, xp[a3 + p]);
            c3_0 = b0.fma(v, c3_0);
            c3_1 = b1.fma(v, c3_1);
            c3_2 = b2.fma(v, c3_2);
            c3_3 = b3.fma(v, c3_3);
            v = FloatVector.broadcast(FS, xp[a4 + p]);
            c4_0 = b0.fma(v, c4_0);
            c4_1 = b1.fma(v, c4_1);
            c4_2 = b2.fma(v, c4_2);
            c4_3 = b3.fma(v, c4_3);
            v = FloatVector.broadcast(FS, xp[a5 + p]);
            c5_0 = b0.fma(v, c5_0);
            c5_1 = b1.fma(v, c5_1);
            c5_2 = b2.fma(v, c5_2);
            c5_3 = b3.fma(v, c5_3);
            if (++ox == ow) {
                ox = 0;
                p += wp - ow + 1;
            } else {
                p++;
            }
        }
        c0_0.intoArray(buf, bo + 0 * KB + 0 * L);
        c0_1.intoArray(buf, bo + 0 * KB + 1 * L);
        c0_2.intoArray(buf, bo + 0 * KB + 2 * L);
        c0_3.intoArray(buf, bo + 0 * KB + 3 * L);
        c1_0.intoArray(buf, bo + 1 * KB + 0 * L);
        c1_1.intoArray(buf, bo + 1 * KB + 1 * L);
        c1_2.intoArray(buf, bo + 1 * KB + 2 * L);
        c1_3.intoArray(buf, bo + 1 * KB + 3 * L);
        c2_0.intoArray(buf, bo + 2 * KB + 0 * L);
        c2_1.intoArray(buf, bo + 2 * KB + 1 * L);
        c2_2.intoArray(buf, bo + 2 * KB + 2 * L);
        c2_3.intoArray(buf, bo + 2 * KB + 3 * L);
        c3_0.intoArray(buf, bo + 3 * KB + 0 * L);
        c3_1.intoArray(buf, bo + 3 * KB + 1 * L);
        c3_2.intoArray(buf, bo + 3 * KB + 2 * L);
        c3_3.intoArray(buf, bo + 3 * KB + 3 * L);
        c4_0.intoArray(buf, bo + 4 * KB + 0 * L);
        c4_1.intoArray(buf, bo + 4 * KB + 1 * L);
        c4_2.intoArray(buf, bo + 4 * KB + 2 * L);
        c4_3.intoArray(buf, bo + 4 * KB + 3 * L);
        c5_0.intoArray(buf, bo + 5 * KB + 0 * L);
        c5_1.intoArray(buf, bo + 5 * KB + 1 * L);
        c5_2.intoArray(buf, bo + 5 * KB + 2 * L);
        c5_3.intoArray(buf, bo + 5 * KB + 3 * L);
    }
}
