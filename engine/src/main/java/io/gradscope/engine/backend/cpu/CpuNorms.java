package io.gradscope.engine.backend.cpu;

import io.gradscope.engine.tensor.Storage;
import io.gradscope.engine.tensor.Tensor;

/**
 * Fused row kernels: softmax and LayerNorm, forward and backward, over the last axis of
 * contiguous tensors. Each row is loaded once into double buffers, so float32 inputs get double
 * accumulation; rows are split over the pool in fixed chunks, so results do not depend on timing.
 */
final class CpuNorms {
    private CpuNorms() {
    }

    private static final ThreadLocal<double[][]> ROW = ThreadLocal.withInitial(() -> new double[4][0]);

    private static double[][] rowBuffers(int d) {
        double[][] b = ROW.get();
        if (b[0].length < d) {
            for (int i = 0; i < b.length; i++) {
                b[i] = new double[d];
            }
        }
        return b;
    }

    /** Runs {@code body(from, to)} over [0, rows) in one chunk per thread (fixed split). */
    private static void rows(int rows, long work, java.util.function.BiConsumer<Integer, Integer> body) {
        int t = work >= StridedLoop.PARALLEL_MIN ? Math.min(CpuThreads.THREADS, Math.max(rows, 1)) : 1;
        CpuThreads.parallelFor(t, c -> body.accept((int) ((long) rows * c / t), (int) ((long) rows * (c + 1) / t)));
    }

    static void softmax(Tensor x, Tensor out, boolean log) {
        int d = x.rank() == 0 ? 1 : x.shape()[x.rank() - 1];
        if (d == 0 || x.numel() == 0) {
            return;
        }
        int rows = (int) (x.numel() / d);
        Storage in = x.storage();
        Storage os = out.storage();
        rows(rows, x.numel(), (from, to) -> {
            double[] v = rowBuffers(d)[0];
            for (int r = from; r < to; r++) {
                Rows.load(in, x.offset() + r * d, 1, d, v);
                double max = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < d; i++) {
                    max = Math.max(max, v[i]);
                }
                // NOTE: an infinite max (a row of -inf, or +inf) would give inf - inf = NaN: shift by 0 there.
                double shift = Double.isInfinite(max) ? 0 : max;
                double sum = 0;
                for (int i = 0; i < d; i++) {
                    sum += Math.exp(v[i] - shift);
                }
                if (log) {
                    double lse = Math.log(sum) + shift;
                    for (int i = 0; i < d; i++) {
                        v[i] = v[i] - lse;
                    }
                } else {
                    for (int i = 0; i < d; i++) {
                        v[i] = Math.exp(v[i] - shift) / sum;
                    }
                }
                Rows.store(v, d, os, out.offset() + r * d, 1);
            }
        });
    }

    static void softmaxBackward(Tensor y, Tensor g, Tensor dx, boolean log) {
        int d = y.rank() == 0 ? 1 : y.shape()[y.rank() - 1];
        if (d == 0 || y.numel() == 0) {
            return;
        }
        int rows = (int) (y.numel() / d);
        rows(rows, y.numel(), (from, to) -> {
            double[][] b = rowBuffers(d);
            double[] yv = b[0];
            double[] gv = b[1];
            for (int r = from; r < to; r++) {
                Rows.load(y.storage(), y.offset() + r * d, 1, d, yv);
                Rows.load(g.storage(), g.offset() + r * d, 1, d, gv);
                double dot = 0;
                if (log) {
                    for (int i = 0; i < d; i++) {
                        dot += gv[i];
                    }
                    for (int i = 0; i < d; i++) {
                        gv[i] = gv[i] - Math.exp(yv[i]) * dot;
                    }
                } else {
                    for (int i = 0; i < d; i++) {
                        dot += gv[i] * yv[i];
                    }
                    for (int i = 0; i < d; i++) {
                        gv[i] = yv[i] * (gv[i] - dot);
                    }
                }
                Rows.store(gv, d, dx.storage(), dx.offset() + r * d, 1);
            }
        });
    }

    static void layerNorm(Tensor x, Tensor w, Tensor b, double eps, Tensor out, Tensor xhat, Tensor rstd) {
        int d = x.shape()[x.rank() - 1];
        int rows = d == 0 ? 0 : (int) (x.numel() / d);
        double[] wv = new double[d];
        double[] bv = new double[d];
        Rows.load(w.storage(), w.offset(), 1, d, wv);
        Rows.load(b.storage(), b.offset(), 1, d, bv);
        rows(rows, x.numel(), (from, to) -> {
            double[][] buf = rowBuffers(d);
            double[] v = buf[0];
            double[] y = buf[1];
            double[] one = new double[1];
            for (int r = from; r < to; r++) {
                Rows.load(x.storage(), x.offset() + r * d, 1, d, v);
                double mean = 0;
                for (int i = 0; i < d; i++) {
                    mean += v[i];
                }
                mean /= d;
                double var = 0;
                for (int i = 0; i < d; i++) {
                    v[i] -= mean;
                    var += v[i] * v[i];
                }
                var /= d;
                double rs = 1 / Math.sqrt(var + eps);
                for (int i = 0; i < d; i++) {
                    v[i] *= rs;
                    y[i] = v[i] * wv[i] + bv[i];
                }
                Rows.store(v, d, xhat.storage(), xhat.offset() + r * d, 1);
                Rows.store(y, d, out.storage(), out.offset() + r * d, 1);
                one[0] = rs;
                Rows.store(one, 1, rstd.storage(), rstd.offset() + r, 1);
            }
        });
    }

    static void layerNormBackward(Tensor g, Tensor w, Tensor xhat, Tensor rstd, Tensor dx, Tensor dw, Tensor db) {
        int d = g.shape()[g.rank() - 1];
        int rows = d == 0 ? 0 : (int) (g.numel() / d);
        double[] wv = new double[d];
        Rows.load(w.storage(), w.offset(), 1, d, wv);
        int chunks = g.numel() >= StridedLoop.PARALLEL_MIN ? Math.min(CpuThreads.THREADS, Math.max(rows, 1)) : 1;
        double[][] dwPart = new double[chunks][d];
        double[][] dbPart = new double[chunks][d];
        CpuThreads.parallelFor(chunks, c -> {
            int from = (int) ((long) rows * c / chunks);
            int to = (int) ((long) rows * (c + 1) / chunks);
            double[][] buf = rowBuffers(d);
            double[] gv = buf[0];
            double[] xv = buf[1];
            double[] out = buf[2];
            double[] one = new double[1];
            double[] pw = dwPart[c];
            double[] pb = dbPart[c];
            for (int r = from; r < to; r++) {
                Rows.load(g.storage(), g.offset() + r * d, 1, d, gv);
                Rows.load(xhat.storage(), xhat.offset() + r * d, 1, d, xv);
                for (int i = 0; i < d; i++) {
                    pw[i] += gv[i] * xv[i];
                    pb[i] += gv[i];
                }
                if (dx != null) {
                    Rows.load(rstd.storage(), rstd.offset() + r, 1, 1, one);
                    double mg = 0;
                    double mgx = 0;
                    for (int i = 0; i < d; i++) {
                        double gw = gv[i] * wv[i];
                        mg += gw;
                        mgx += gw * xv[i];
                    }
                    mg /= d;
                    mgx /= d;
                    for (int i = 0; i < d; i++) {
                        out[i] = one[0] * (gv[i] * wv[i] - mg - xv[i] * mgx);
                    }
                    Rows.store(out, d, dx.storage(), dx.offset() + r * d, 1);
                }
            }
        });
        double[] sw = new double[d];
        double[] sb = new double[d];
        for (int c = 0; c < chunks; c++) {
            for (int i = 0; i < d; i++) {
                sw[i] += dwPart[c][i];
                sb[i] += dbPart[c][i];
            }
        }
        if (dw != null) {
            Rows.store(sw, d, dw.storage(), dw.offset(), 1);
        }
        if (db != null) {
            Rows.store(sb, d, db.storage(), db.offset(), 1);
        }
    }
}
