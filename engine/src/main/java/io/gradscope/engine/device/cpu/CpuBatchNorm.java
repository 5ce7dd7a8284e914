package io.gradscope.engine.device.cpu;

import io.gradscope.engine.tensor.Tensor;

/**
 * Batch norm's per-channel passes over contiguous float32 {@code [N, C, M...]} (M the product of the
 * spatial sizes): the affine map {@code x·α[c] + β[c]} (the inference forward, and the input gradient
 * {@code g·(w·r)[c]}) and the backward's two sums per channel, {@code Σ g} and {@code Σ g·(x − m[c])},
 * in one pass. Planes ({@code n, c}) are split over the pool for the map; channels for the sums, each
 * summed by one thread in a fixed order (in double), so results never depend on timing. Training
 * mode adds its statistics ({@link #stats}: mean and 1/√(var + eps), two passes) and its input
 * gradient ({@link #normGrad}, one pass after {@link #sums}).
 */
final class CpuBatchNorm {
    private CpuBatchNorm() {
    }

    /** Whether the kernels apply: x float32, contiguous, rank ≥ 2, and every other tensor float32 and contiguous. */
    static boolean fits(Tensor x, Tensor... others) {
        if (x.rank() < 2 || !x.isContiguous() || !CpuNorms.allFloat32(x)) {
            return false;
        }
        for (Tensor t : others) {
            if (t != null && (!t.isContiguous() || !CpuNorms.allFloat32(t))) {
                return false;
            }
        }
        return true;
    }

    /** {@code out = x·alpha[c] + beta[c]} (beta null: no sum, so a product's −0 stays), alpha and beta {@code [C]}. */
    static void affine(Tensor x, Tensor alpha, Tensor beta, Tensor out) {
        int[] s = x.shape();
        int c = s[1];
        long planes = (long) s[0] * c;
        if (planes == 0) {
            return;
        }
        int m = (int) (x.numel() / planes);
        float[] xs = x.storage().floats();
        float[] ys = out.storage().floats();
        float[] as = alpha.storage().floats();
        float[] bs = beta == null ? null : beta.storage().floats();
        int xo = x.offset();
        int yo = out.offset();
        int ao = alpha.offset();
        int bo = beta == null ? 0 : beta.offset();
        CpuNorms.rows((int) planes, x.numel(), (from, to) -> {
            for (int p = from; p < to; p++) {
                int ch = p % c;
                float a = as[ao + ch];
                int xb = xo + p * m;
                int yb = yo + p * m;
                if (bs == null) {
                    for (int i = 0; i < m; i++) {
                        ys[yb + i] = xs[xb + i] * a;
                    }
                } else {
                    float b = bs[bo + ch];
                    for (int i = 0; i < m; i++) {
                        ys[yb + i] = xs[xb + i] * a + b;
                    }
                }
            }
        });
    }

    /**
     * Per channel, in one pass over g and x: {@code gsum[c] = Σ g} and {@code gxc[c] = Σ g·(x − mean[c])}
     * over the batch and the spatial positions; mean, gsum and gxc are {@code [C]}.
     */
    static void sums(Tensor g, Tensor x, Tensor mean, Tensor gsum, Tensor gxc) {
        int[] s = x.shape();
        int n = s[0];
        int c = s[1];
        long planes = (long) n * c;
        int m = planes == 0 ? 0 : (int) (x.numel() / planes);
        float[] gs = g.storage().floats();
        float[] xs = x.storage().floats();
        float[] ms = mean.storage().floats();
        float[] s0 = gsum.storage().floats();
        float[] s1 = gxc.storage().floats();
        int go = g.offset();
        int xo = x.offset();
        CpuNorms.rows(c, x.numel(), (from, to) -> {
            for (int ch = from; ch < to; ch++) {
                float mu = ms[mean.offset() + ch];
                double sg = 0;
                double sgx = 0;
                for (int b = 0; b < n; b++) {
                    int base = (b * c + ch) * m;
                    // four partial sums: independent chains the JIT can overlap
                    double g0 = 0, g1 = 0, g2 = 0, g3 = 0, x0 = 0, x1 = 0, x2 = 0, x3 = 0;
                    int i = 0;
                    for (; i + 4 <= m; i += 4) {
                        float ga = gs[go + base + i];
                        float gb = gs[go + base + i + 1];
                        float gc = gs[go + base + i + 2];
                        float gd = gs[go + base + i + 3];
                        g0 += ga;
                        g1 += gb;
                        g2 += gc;
                        g3 += gd;
                        x0 += (double) ga * (xs[xo + base + i] - mu);
                        x1 += (double) gb * (xs[xo + base + i + 1] - mu);
                        x2 += (double) gc * (xs[xo + base + i + 2] - mu);
                        x3 += (double) gd * (xs[xo + base + i + 3] - mu);
                    }
                    for (; i < m; i++) {
                        float ga = gs[go + base + i];
                        g0 += ga;
                        x0 += (double) ga * (xs[xo + base + i] - mu);
                    }
                    sg += (g0 + g1) + (g2 + g3);
                    sgx += (x0 + x1) + (x2 + x3);
                }
                s0[gsum.offset() + ch] = (float) sg;
                s1[gxc.offset() + ch] = (float) sgx;
            }
        });
    }

    /**
     * Training mode's statistics per channel, over the batch and the spatial positions, in double:
     * {@code mean[c]}, then (a second pass) the biased variance of x about it, as
     * {@code rstd[c] = 1/√(var + eps)}; mean and rstd are {@code [C]}.
     */
    static void stats(Tensor x, double eps, Tensor mean, Tensor rstd) {
        int[] s = x.shape();
        int n = s[0];
        int c = s[1];
        long planes = (long) n * c;
        int m = planes == 0 ? 0 : (int) (x.numel() / planes);
        float[] xs = x.storage().floats();
        float[] ms = mean.storage().floats();
        float[] rs = rstd.storage().floats();
        int xo = x.offset();
        double count = (double) n * m;
        CpuNorms.rows(c, 2 * x.numel(), (from, to) -> {
            for (int ch = from; ch < to; ch++) {
                double sum = 0;
                for (int b = 0; b < n; b++) {
                    int base = xo + (b * c + ch) * m;
                    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                    int i = 0;
                    for (; i + 4 <= m; i += 4) {
                        s0 += xs[base + i];
                        s1 += xs[base + i + 1];
                        s2 += xs[base + i + 2];
                        s3 += xs[base + i + 3];
                    }
                    for (; i < m; i++) {
                        s0 += xs[base + i];
                    }
                    sum += (s0 + s1) + (s2 + s3);
                }
                double mu = sum / count;
                double sq = 0;
                for (int b = 0; b < n; b++) {
                    int base = xo + (b * c + ch) * m;
                    double q0 = 0, q1 = 0, q2 = 0, q3 = 0;
                    int i = 0;
                    for (; i + 4 <= m; i += 4) {
                        double d0 = xs[base + i] - mu;
                        double d1 = xs[base + i + 1] - mu;
                        double d2 = xs[base + i + 2] - mu;
                        double d3 = xs[base + i + 3] - mu;
                        q0 += d0 * d0;
                        q1 += d1 * d1;
                        q2 += d2 * d2;
                        q3 += d3 * d3;
                    }
                    for (; i < m; i++) {
                        double d0 = xs[base + i] - mu;
                        q0 += d0 * d0;
                    }
                    sq += (q0 + q1) + (q2 + q3);
                }
                ms[mean.offset() + ch] = (float) mu;
                rs[rstd.offset() + ch] = (float) (1 / Math.sqrt(sq / count + eps));
            }
        });
    }

    /**
     * Training mode's input gradient in one pass: {@code out = a[c]·(g − b[c] − (x − m[c])·k[c])}, all
     * of a, b, m, k {@code [C]}: with a = w·r, b = mean(g), k = r·mean(g·x̂), the normalisation's VJP
     * {@code w·r·(g − mean(g) − x̂·mean(g·x̂))} where x̂ = (x − m)·r.
     */
    static void normGrad(Tensor g, Tensor x, Tensor a, Tensor b, Tensor m, Tensor k, Tensor out) {
        int[] s = x.shape();
        int c = s[1];
        long planes = (long) s[0] * c;
        if (planes == 0) {
            return;
        }
        int len = (int) (x.numel() / planes);
        float[] gs = g.storage().floats();
        float[] xs = x.storage().floats();
        float[] ys = out.storage().floats();
        float[] av = a.storage().floats();
        float[] bv = b.storage().floats();
        float[] mv = m.storage().floats();
        float[] kv = k.storage().floats();
        CpuNorms.rows((int) planes, 2 * x.numel(), (from, to) -> {
            for (int p = from; p < to; p++) {
                int ch = p % c;
                float ac = av[a.offset() + ch];
                float bc = bv[b.offset() + ch];
                float mc = mv[m.offset() + ch];
                float kc = kv[k.offset() + ch];
                int gb = g.offset() + p * len;
                int xb = x.offset() + p * len;
                int yb = out.offset() + p * len;
                for (int i = 0; i < len; i++) {
                    ys[yb + i] = ac * (gs[gb + i] - bc - (xs[xb + i] - mc) * kc);
                }
            }
        });
    }
}
