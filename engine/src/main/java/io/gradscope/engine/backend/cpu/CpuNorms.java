package io.gradscope.engine.backend.cpu;

import io.gradscope.engine.tensor.DType;
import java.util.Arrays;
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
        if (CpuMatmul.VECTOR && in.dtype() == DType.FLOAT32 && os.dtype() == DType.FLOAT32) {
            rows(rows, x.numel(), (from, to) -> {
                for (int r = from; r < to; r++) {
                    VectorRows.softmaxRow(in.floats(), x.offset() + r * d, os.floats(), out.offset() + r * d, d, log);
                }
            });
            return;
        }
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
                double[] e = rowBuffers(d)[1];
                double sum = 0;
                for (int i = 0; i < d; i++) {
                    e[i] = Math.exp(v[i] - shift);
                    sum += e[i];
                }
                if (log) {
                    double lse = Math.log(sum) + shift;
                    for (int i = 0; i < d; i++) {
                        v[i] = v[i] - lse;
                    }
                } else {
                    double inv = 1 / sum;
                    for (int i = 0; i < d; i++) {
                        v[i] = e[i] * inv;
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
        if (CpuMatmul.VECTOR && y.dtype() == DType.FLOAT32 && g.dtype() == DType.FLOAT32 && dx.dtype() == DType.FLOAT32) {
            rows(rows, y.numel(), (from, to) -> {
                for (int r = from; r < to; r++) {
                    VectorRows.softmaxBackwardRow(y.storage().floats(), y.offset() + r * d, g.storage().floats(),
                            g.offset() + r * d, dx.storage().floats(), dx.offset() + r * d, d, log);
                }
            });
            return;
        }
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
        if (allFloat32(x, w, b, out, xhat, rstd)) {
            float[] wf = Arrays.copyOfRange(w.storage().floats(), w.offset(), w.offset() + d);
            float[] bf = Arrays.copyOfRange(b.storage().floats(), b.offset(), b.offset() + d);
            rows(rows, x.numel(), (from, to) -> {
                for (int r = from; r < to; r++) {
                    if (CpuMatmul.VECTOR) {
                        VectorRows.layerNormRow(x.storage().floats(), x.offset() + r * d, wf, bf, eps, out.storage().floats(),
                                out.offset() + r * d, xhat.storage().floats(), xhat.offset() + r * d, rstd.storage().floats(),
                                rstd.offset() + r, d);
                    } else {
                        layerNormRowF(x.storage().floats(), x.offset() + r * d, wf, bf, eps, out.storage().floats(),
                                out.offset() + r * d, xhat.storage().floats(), xhat.offset() + r * d, rstd.storage().floats(),
                                rstd.offset() + r, d);
                    }
                }
            });
            return;
        }
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

    private static boolean allFloat32(Tensor... ts) {
        for (Tensor t : ts) {
            if (t != null && t.dtype() != DType.FLOAT32) {
                return false;
            }
        }
        return true;
    }

    /** One float32 row, read and written in place; statistics in double, two passes. */
    private static void layerNormRowF(float[] x, int xo, float[] w, float[] b, double eps, float[] out, int oo,
                                      float[] xhat, int ho, float[] rstd, int ro, int d) {
        // Four partial sums break the add latency chain; the order is fixed, so results are too.
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        int i = 0;
        for (; i + 3 < d; i += 4) {
            s0 += x[xo + i];
            s1 += x[xo + i + 1];
            s2 += x[xo + i + 2];
            s3 += x[xo + i + 3];
        }
        for (; i < d; i++) {
            s0 += x[xo + i];
        }
        double mean = (s0 + s1 + s2 + s3) / d;
        double v0 = 0, v1 = 0, v2 = 0, v3 = 0;
        i = 0;
        for (; i + 3 < d; i += 4) {
            double c0 = x[xo + i] - mean;
            double c1 = x[xo + i + 1] - mean;
            double c2 = x[xo + i + 2] - mean;
            double c3 = x[xo + i + 3] - mean;
            v0 += c0 * c0;
            v1 += c1 * c1;
            v2 += c2 * c2;
            v3 += c3 * c3;
        }
        for (; i < d; i++) {
            double c = x[xo + i] - mean;
            v0 += c * c;
        }
        double rs = 1 / Math.sqrt((v0 + v1 + v2 + v3) / d + eps);
        for (i = 0; i < d; i++) {
            float h = (float) ((x[xo + i] - mean) * rs);
            xhat[ho + i] = h;
            out[oo + i] = h * w[i] + b[i];
        }
        rstd[ro] = (float) rs;
    }

    /** One float32 row of the VJP; row sums in double, dw and db accumulated in double partials. */
    private static void layerNormBackwardRowF(float[] g, int go, float[] w, float[] xh, int ho, float rs, float[] dx, int xo,
                                              double[] pw, double[] pb, int d) {
        double m0 = 0, m1 = 0, x0 = 0, x1 = 0;
        int i = 0;
        for (; i + 1 < d; i += 2) {
            float gw0 = g[go + i] * w[i];
            float gw1 = g[go + i + 1] * w[i + 1];
            m0 += gw0;
            m1 += gw1;
            x0 += gw0 * xh[ho + i];
            x1 += gw1 * xh[ho + i + 1];
        }
        for (; i < d; i++) {
            float gw = g[go + i] * w[i];
            m0 += gw;
            x0 += gw * xh[ho + i];
        }
        for (i = 0; i < d; i++) {
            float gi = g[go + i];
            pw[i] += gi * xh[ho + i];
            pb[i] += gi;
        }
        if (dx != null) {
            float a = (float) ((m0 + m1) / d);
            float c = (float) ((x0 + x1) / d);
            for (i = 0; i < d; i++) {
                dx[xo + i] = rs * (g[go + i] * w[i] - a - xh[ho + i] * c);
            }
        }
    }

    static void layerNormBackward(Tensor g, Tensor w, Tensor xhat, Tensor rstd, Tensor dx, Tensor dw, Tensor db) {
        int d = g.shape()[g.rank() - 1];
        int rows = d == 0 ? 0 : (int) (g.numel() / d);
        double[] wv = new double[d];
        Rows.load(w.storage(), w.offset(), 1, d, wv);
        int chunks = g.numel() >= StridedLoop.PARALLEL_MIN ? Math.min(CpuThreads.THREADS, Math.max(rows, 1)) : 1;
        double[][] dwPart = new double[chunks][d];
        double[][] dbPart = new double[chunks][d];
        if (CpuMatmul.VECTOR && allFloat32(g, w, xhat, rstd, dx)) {
            float[] wf = Arrays.copyOfRange(w.storage().floats(), w.offset(), w.offset() + d);
            float[][] fw = new float[chunks][d];
            float[][] fb = new float[chunks][d];
            CpuThreads.parallelFor(chunks, c -> {
                int from = (int) ((long) rows * c / chunks);
                int to = (int) ((long) rows * (c + 1) / chunks);
                for (int r = from; r < to; r++) {
                    VectorRows.layerNormBackwardRow(g.storage().floats(), g.offset() + r * d, wf, xhat.storage().floats(),
                            xhat.offset() + r * d, rstd.storage().floats()[rstd.offset() + r],
                            dx == null ? null : dx.storage().floats(), dx == null ? 0 : dx.offset() + r * d, fw[c], fb[c], d);
                }
            });
            for (int c = 0; c < chunks; c++) {
                for (int i = 0; i < d; i++) {
                    dwPart[c][i] = fw[c][i];
                    dbPart[c][i] = fb[c][i];
                }
            }
        } else if (allFloat32(g, w, xhat, rstd, dx)) {
            float[] wf = Arrays.copyOfRange(w.storage().floats(), w.offset(), w.offset() + d);
            CpuThreads.parallelFor(chunks, c -> {
                int from = (int) ((long) rows * c / chunks);
                int to = (int) ((long) rows * (c + 1) / chunks);
                for (int r = from; r < to; r++) {
                    layerNormBackwardRowF(g.storage().floats(), g.offset() + r * d, wf, xhat.storage().floats(),
                            xhat.offset() + r * d, rstd.storage().floats()[rstd.offset() + r],
                            dx == null ? null : dx.storage().floats(), dx == null ? 0 : dx.offset() + r * d, dwPart[c], dbPart[c], d);
                }
            });
        } else {
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
        }
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
