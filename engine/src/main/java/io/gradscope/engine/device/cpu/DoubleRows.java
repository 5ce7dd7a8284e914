package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.Tensor;

/**
 * The fused row kernels of {@link CpuNorms} for float64 (and mixed dtypes): each row loaded into
 * double buffers, computed in double, stored back.
 */
final class DoubleRows {
    private DoubleRows() {
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

    static void softmax(Tensor x, Tensor out, boolean log, int d, int from, int to) {
        double[][] b = rowBuffers(d);
        double[] v = b[0];
        double[] e = b[1];
        for (int r = from; r < to; r++) {
            Rows.load(x.storage(), x.offset() + r * d, 1, d, v);
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < d; i++) {
                max = Math.max(max, v[i]);
            }
            // an infinite max (a row of -inf, or +inf) would give inf - inf = NaN: shift by 0 there.
            double shift = Double.isInfinite(max) ? 0 : max;
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
            Rows.store(v, d, out.storage(), out.offset() + r * d, 1);
        }
    }

    static void softmaxBackward(Tensor y, Tensor g, Tensor dx, boolean log, int d, int from, int to) {
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
    }

    /** Two-pass statistics; {@code stats} gets (mean, 0) per row, {@code xhat} x̂ (either may be null). */
    static void layerNorm(Tensor x, Tensor w, Tensor bias, double eps, Tensor out, Tensor xhat, Tensor stats, Tensor rstd, int d,
                          int from, int to) {
        double[][] buf = rowBuffers(d);
        double[] v = buf[0];
        double[] y = buf[1];
        double[] wv = buf[2];
        double[] bv = buf[3];
        Rows.load(w.storage(), w.offset(), 1, d, wv);
        Rows.load(bias.storage(), bias.offset(), 1, d, bv);
        double[] one = new double[2];
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
            if (xhat != null) {
                Rows.store(v, d, xhat.storage(), xhat.offset() + r * d, 1);
            }
            Rows.store(y, d, out.storage(), out.offset() + r * d, 1);
            if (stats != null) {
                one[0] = mean;
                one[1] = 0;
                Rows.store(one, 2, stats.storage(), stats.offset() + 2 * r, 1);
            }
            one[0] = rs;
            Rows.store(one, 1, rstd.storage(), rstd.offset() + r, 1);
        }
    }

    /** dx per row (x̂ from {@code xhat} or recomputed from x and stats); dw, db summed per block of 256 rows, blocks in order. */
    static void layerNormBackward(Tensor g, Tensor w, Tensor xhat, Tensor x, Tensor stats, Tensor rstd, Tensor dx, Tensor dw,
                                  Tensor db, int d, int rows) {
        double[] wv = new double[d];
        Rows.load(w.storage(), w.offset(), 1, d, wv);
        int blocks = Math.max(1, (rows + FloatMath.BLOCK - 1) / FloatMath.BLOCK);
        double[][] pw = new double[blocks][d];
        double[][] pb = new double[blocks][d];
        int tasks = g.numel() >= StridedLoop.PARALLEL_MIN ? blocks : 1;
        CpuThreads.parallelFor(tasks, t -> {
            double[] gv = new double[d];
            double[] xv = new double[d];
            double[] out = new double[d];
            double[] one = new double[2];
            for (int blk = blocks * t / tasks; blk < blocks * (t + 1) / tasks; blk++) {
                for (int r = blk * FloatMath.BLOCK; r < Math.min(rows, (blk + 1) * FloatMath.BLOCK); r++) {
                    Rows.load(g.storage(), g.offset() + r * d, 1, d, gv);
                    Rows.load(rstd.storage(), rstd.offset() + r, 1, 1, one);
                    double rs = one[0];
                    if (xhat != null) {
                        Rows.load(xhat.storage(), xhat.offset() + r * d, 1, d, xv);
                    } else {
                        Rows.load(x.storage(), x.offset() + r * d, 1, d, xv);
                        Rows.load(stats.storage(), stats.offset() + 2 * r, 1, 2, one);
                        for (int i = 0; i < d; i++) {
                            xv[i] = (xv[i] - one[0] - one[1]) * rs;
                        }
                    }
                    for (int i = 0; i < d; i++) {
                        pw[blk][i] += gv[i] * xv[i];
                        pb[blk][i] += gv[i];
                    }
                    if (dx != null) {
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
                            out[i] = rs * (gv[i] * wv[i] - mg - xv[i] * mgx);
                        }
                        Rows.store(out, d, dx.storage(), dx.offset() + r * d, 1);
                    }
                }
            }
        });
        double[] sw = new double[d];
        double[] sb = new double[d];
        for (int k = 0; k < blocks; k++) {
            for (int i = 0; i < d; i++) {
                sw[i] += pw[k][i];
                sb[i] += pb[k][i];
            }
        }
        if (dw != null) {
            Rows.store(sw, d, dw.storage(), dw.offset(), dw.rank() == 0 ? 0 : dw.strides()[dw.rank() - 1]);
        }
        if (db != null) {
            Rows.store(sb, d, db.storage(), db.offset(), db.rank() == 0 ? 0 : db.strides()[db.rank() - 1]);
        }
    }

    static void crossEntropy(Tensor z, long[] labels, Tensor losses, Tensor dz, double scale, int c, int from, int to) {
        double[][] b = rowBuffers(c);
        double[] v = b[0];
        double[] e = b[1];
        double[] one = new double[1];
        for (int r = from; r < to; r++) {
            Rows.load(z.storage(), z.offset() + r * c, 1, c, v);
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < c; i++) {
                max = Math.max(max, v[i]);
            }
            double shift = Double.isInfinite(max) ? 0 : max;
            double sum = 0;
            for (int i = 0; i < c; i++) {
                e[i] = Math.exp(v[i] - shift);
                sum += e[i];
            }
            int k = (int) labels[r];
            one[0] = Math.log(sum) + shift - v[k];
            Rows.store(one, 1, losses.storage(), losses.offset() + r, 1);
            double inv = 1 / sum;
            for (int i = 0; i < c; i++) {
                e[i] = (e[i] * inv - (i == k ? 1 : 0)) * scale;
            }
            Rows.store(e, c, dz.storage(), dz.offset() + r * c, 1);
        }
    }
}
