package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;

/**
 * Fused row kernels over the last axis of contiguous tensors: softmax, LayerNorm and
 * cross-entropy, forward and backward. Float32 rows are computed in float32 from {@link FloatKernels}'
 * pieces (cascade sums, the exact-operation exp); float64 rows in double ({@link DoubleRows}).
 * Rows are split over the pool in fixed ranges, and sums across rows (LayerNorm's dw and db) go by
 * blocks of 256 rows combined pairwise in order, so results never depend on timing or the number
 * of threads.
 */
final class CpuNorms {
    private CpuNorms() {
    }

    /**
     * Runs {@code body(from, to)} over [0, rows) in ranges handed out to the threads as they come
     * free (eight per thread, so a thread that the machine's load slows down takes fewer); rows are
     * independent, so the split never changes a result.
     */
    static void rows(int rows, long work, RowRange body) {
        int t = work >= StridedLoop.PARALLEL_MIN ? Math.min(8 * CpuThreads.THREADS, Math.max(rows, 1)) : 1;
        CpuThreads.parallelFor(t, c -> body.run((int) ((long) rows * c / t), (int) ((long) rows * (c + 1) / t)));
    }

    interface RowRange {
        void run(int from, int to);
    }

    private static int lastDim(Tensor t) {
        return t.rank() == 0 ? 1 : t.shape()[t.rank() - 1];
    }

    static boolean allFloat32(Tensor... ts) {
        for (Tensor t : ts) {
            if (t != null && t.dtype() != DType.FLOAT32) {
                return false;
            }
        }
        return true;
    }

    // ---- softmax ------------------------------------------------------------------------------

    static void softmax(Tensor x, Tensor out, boolean log) {
        int d = lastDim(x);
        if (d == 0 || x.numel() == 0) {
            return;
        }
        int rows = (int) (x.numel() / d);
        if (!allFloat32(x, out)) {
            rows(rows, x.numel(), (from, to) -> DoubleRows.softmax(x, out, log, d, from, to));
            return;
        }
        float[] xs = x.storage().floats();
        float[] ys = out.storage().floats();
        rows(rows, x.numel(), (from, to) -> {
            FloatMath.Scratch sc = new FloatMath.Scratch();
            for (int r = from; r < to; r++) {
                softmaxRow(xs, x.offset() + r * d, ys, out.offset() + r * d, d, log, sc);
            }
        });
    }

    /** One row, max-subtracted; the sum is the cascade's, the division a product with 1/sum (as PyTorch). */
    static float softmaxRow(float[] xs, int xo, float[] ys, int yo, int d, boolean log, FloatMath.Scratch sc) {
        float max = FloatKernels.max(xs, xo, d);
        // an infinite max (a row of -inf, or +inf) would give inf - inf = NaN: shift by 0 there (as PyTorch).
        float shift = Float.isInfinite(max) ? 0f : max;
        float sum = FloatKernels.expSum(xs, xo, shift, ys, yo, d, sc);
        if (log) {
            float ls = (float) Math.log(sum);
            for (int i = 0; i < d; i++) {
                ys[yo + i] = (xs[xo + i] - shift) - ls;
            }
        } else {
            FloatKernels.scale(ys, yo, 1f / sum, d);
        }
        return sum;
    }

    static void softmaxBackward(Tensor y, Tensor g, Tensor dx, boolean log) {
        int d = lastDim(y);
        if (d == 0 || y.numel() == 0) {
            return;
        }
        int rows = (int) (y.numel() / d);
        if (!allFloat32(y, g, dx)) {
            rows(rows, y.numel(), (from, to) -> DoubleRows.softmaxBackward(y, g, dx, log, d, from, to));
            return;
        }
        float[] ys = y.storage().floats();
        float[] gs = g.storage().floats();
        float[] xs = dx.storage().floats();
        rows(rows, y.numel(), (from, to) -> {
            FloatMath.Scratch sc = new FloatMath.Scratch();
            for (int r = from; r < to; r++) {
                int yo = y.offset() + r * d;
                int go = g.offset() + r * d;
                int xo = dx.offset() + r * d;
                if (log) {
                    FloatKernels.logSoftmaxDx(ys, yo, gs, go, FloatKernels.sum(gs, go, d, sc), xs, xo, d);
                } else {
                    FloatKernels.softmaxDx(ys, yo, gs, go, FloatKernels.dot(gs, go, ys, yo, d, sc), xs, xo, d);
                }
            }
        });
    }

    // ---- LayerNorm ----------------------------------------------------------------------------

    /**
     * LayerNorm rows saving the statistics: {@code stats [R, 2]} holds each row's mean as m + δ (δ the
     * mean of the residuals x − m, so an offset of 1000 keeps its precision: x̂ = ((x − m) − δ)·r),
     * {@code rstd [R, 1]} the reciprocal standard deviation. With {@code xhat} not null, x̂ too.
     */
    static void layerNorm(Tensor x, Tensor w, Tensor b, double eps, Tensor out, Tensor xhat, Tensor stats, Tensor rstd) {
        int d = lastDim(x);
        int rows = d == 0 ? 0 : (int) (x.numel() / d);
        if (!allFloat32(x, w, b, out, xhat, stats, rstd)) {
            rows(rows, x.numel(), (from, to) -> DoubleRows.layerNorm(x, w, b, eps, out, xhat, stats, rstd, d, from, to));
            return;
        }
        float[] xs = x.storage().floats();
        float[] wf = java.util.Arrays.copyOfRange(w.storage().floats(), w.offset(), w.offset() + d);
        float[] bf = java.util.Arrays.copyOfRange(b.storage().floats(), b.offset(), b.offset() + d);
        float[] os = out.storage().floats();
        float[] hs = xhat == null ? null : xhat.storage().floats();
        float[] st = stats == null ? null : stats.storage().floats();
        float[] rs = rstd.storage().floats();
        rows(rows, x.numel(), (from, to) -> {
            float[] two = new float[2];
            FloatMath.Scratch sc = new FloatMath.Scratch();
            for (int r = from; r < to; r++) {
                int xo = x.offset() + r * d;
                float m = FloatKernels.sum(xs, xo, d, sc) / d;
                FloatKernels.deviationSums(xs, xo, d, m, two);
                double delta = (double) two[0] / d;
                // Σ(c − δ)² = Σc² − dδ²: the variance around the corrected mean.
                double var = Math.max((double) two[1] / d - delta * delta, 0);
                float rr = (float) (1 / Math.sqrt(var + eps));
                float df = (float) delta;
                FloatKernels.normalize(xs, xo, m, df, rr, hs, xhat == null ? 0 : xhat.offset() + r * d, wf, bf, os,
                        out.offset() + r * d, d);
                if (st != null) {
                    st[stats.offset() + 2 * r] = m;
                    st[stats.offset() + 2 * r + 1] = df;
                }
                rs[rstd.offset() + r] = rr;
            }
        });
    }

    /**
     * LayerNorm's VJP. x̂ comes from {@code xhat}, or is recomputed from {@code x} and {@code stats}
     * (the forward's own operations, so the same bits). dx (may be null) per row; dw = Σ g ⊙ x̂ and
     * db = Σ g (either may be null) over rows by blocks of 256 rows: inside a block row i goes to
     * lane row i mod 16, the lanes are folded in halves, and the blocks are added pairwise in order
     * (Note [Cascade sum], per column).
     */
    static void layerNormBackward(Tensor g, Tensor w, Tensor xhat, Tensor x, Tensor stats, Tensor rstd, Tensor dx, Tensor dw,
                                  Tensor db) {
        int d = lastDim(g);
        int rows = d == 0 ? 0 : (int) (g.numel() / d);
        if (!allFloat32(g, w, xhat, x, stats, rstd, dx, dw, db)) {
            DoubleRows.layerNormBackward(g, w, xhat, x, stats, rstd, dx, dw, db, d, rows);
            return;
        }
        float[] gs = g.storage().floats();
        float[] wf = java.util.Arrays.copyOfRange(w.storage().floats(), w.offset(), w.offset() + d);
        float[] rs = rstd.storage().floats();
        float[] dxs = dx == null ? null : dx.storage().floats();
        boolean sums = dw != null || db != null;
        int lanesN = FloatMath.LANES;
        int blocks = Math.max(1, (rows + FloatMath.BLOCK - 1) / FloatMath.BLOCK);
        float[][] blockW = new float[blocks][];
        float[][] blockB = new float[blocks][];
        // One task per block of rows, handed out as threads come free; each block's sums land in its own slot.
        int tasks = g.numel() >= StridedLoop.PARALLEL_MIN ? blocks : 1;
        CpuThreads.parallelFor(tasks, t -> {
            float[] h = new float[d];
            float[] gw = new float[d];
            float[] lw = sums ? new float[lanesN * d] : null;
            float[] lb = sums ? new float[lanesN * d] : null;
            FloatMath.Scratch sc = new FloatMath.Scratch();
            float[] xs = xhat != null ? xhat.storage().floats() : x.storage().floats();
            float[] st = stats == null ? null : stats.storage().floats();
            for (int blk = blocks * t / tasks; blk < blocks * (t + 1) / tasks; blk++) {
                int from = blk * FloatMath.BLOCK;
                int to = Math.min(rows, from + FloatMath.BLOCK);
                for (int r = from; r < to; r++) {
                    int go = g.offset() + r * d;
                    float rr = rs[rstd.offset() + r];
                    // With a saved x̂ the same pass reads it as ((x̂ − 0) − 0)·1, which is x̂ exactly.
                    int xo = xhat != null ? xhat.offset() + r * d : x.offset() + r * d;
                    float m = st == null ? 0f : st[stats.offset() + 2 * r];
                    float delta = st == null ? 0f : st[stats.offset() + 2 * r + 1];
                    float scale = xhat != null ? 1f : rr;
                    FloatKernels.layerNormBackRow(gs, go, xs, xo, wf, m, delta, scale, h, gw, lw, lb,
                            ((r - from) & (lanesN - 1)) * d, d, sc);
                    if (dxs != null) {
                        float a = sc.out[0] / d;
                        float c = sc.out[1] / d;
                        FloatKernels.layerNormDx(gw, h, a, c, rr, dxs, dx.offset() + r * d, d);
                    }
                }
                if (sums) {
                    blockW[blk] = foldLanes(lw, d);
                    blockB[blk] = foldLanes(lb, d);
                }
            }
        });
        if (dw != null) {
            writeRow(pairwise(blockW, d), dw);
        }
        if (db != null) {
            writeRow(pairwise(blockB, d), db);
        }
    }

    /** Folds 16 lane rows in halves into a new row and clears the lanes. */
    private static float[] foldLanes(float[] lanes, int d) {
        for (int w = FloatMath.LANES / 2; w >= 1; w >>= 1) {
            for (int j = 0; j < w; j++) {
                FloatKernels.addInto(lanes, (j + w) * d, lanes, j * d, d);
            }
        }
        float[] row = java.util.Arrays.copyOf(lanes, d);
        java.util.Arrays.fill(lanes, 0f);
        return row;
    }

    /** Block rows added pairwise in order (a binary counter), as {@link FloatMath.Pairwise} per column. */
    private static float[] pairwise(float[][] blocks, int d) {
        float[][] stack = new float[41][];
        int top = 0;
        for (int k = 0; k < blocks.length; k++) {
            stack[top++] = blocks[k] == null ? new float[d] : blocks[k];
            for (int m = k + 1; (m & 1) == 0; m >>= 1) {
                FloatKernels.addInto(stack[top - 1], 0, stack[top - 2], 0, d);
                top--;
            }
        }
        float[] r = stack[top - 1].clone();
        for (int i = top - 2; i >= 0; i--) {
            FloatKernels.addInto(stack[i], 0, r, 0, d);
        }
        return r;
    }

    private static void writeRow(float[] row, Tensor t) {
        float[] ts = t.storage().floats();
        int s = t.rank() == 0 ? 0 : t.strides()[t.rank() - 1];
        for (int i = 0; i < row.length; i++) {
            ts[t.offset() + i * s] = row[i];
        }
    }

    // ---- cross-entropy ------------------------------------------------------------------------

    /**
     * Cross-entropy rows of logits {@code z [N, C]} (contiguous) with class indices: each row's loss
     * logsumexp(z) − z[label] into {@code losses [N]}, and (softmax(z) − onehot)·scale into
     * {@code dz [N, C]}, all from one exp per element.
     */
    static void crossEntropy(Tensor z, long[] labels, Tensor losses, Tensor dz, double scale) {
        int c = lastDim(z);
        int rows = labels.length;
        if (!allFloat32(z, losses, dz)) {
            rows(rows, z.numel(), (from, to) -> DoubleRows.crossEntropy(z, labels, losses, dz, scale, c, from, to));
            return;
        }
        float[] zs = z.storage().floats();
        float[] ls = losses.storage().floats();
        float[] ds = dz.storage().floats();
        float lossScale = (float) scale;
        rows(rows, z.numel(), (from, to) -> {
            FloatMath.Scratch sc = new FloatMath.Scratch();
            for (int r = from; r < to; r++) {
                int zo = z.offset() + r * c;
                int o = dz.offset() + r * c;
                float max = FloatKernels.max(zs, zo, c);
                float shift = Float.isInfinite(max) ? 0f : max;
                float sum = FloatKernels.expSum(zs, zo, shift, ds, o, c, sc);
                int k = (int) labels[r];
                ls[losses.offset() + r] = (float) (Math.log(sum) + shift - zs[zo + k]);
                FloatKernels.scale(ds, o, 1f / sum, c);
                ds[o + k] -= 1f;
                FloatKernels.scale(ds, o, lossScale, c);
            }
        });
    }
}
