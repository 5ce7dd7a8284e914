package io.gradscope.engine.backend.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Float32 softmax rows with the Vector API (a vectorized exp); used only when the module is
 * present ({@link CpuMatmul#VECTOR}). Sums are kept per lane in float, as PyTorch's float kernels do.
 */
final class VectorRows {
    private VectorRows() {
    }

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

    static void softmaxRow(float[] x, int xo, float[] y, int yo, int d, boolean log) {
        int l = S.length();
        int vEnd = d - d % l;
        FloatVector vmax = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        for (int i = 0; i < vEnd; i += l) {
            vmax = vmax.max(FloatVector.fromArray(S, x, xo + i));
        }
        float max = vmax.reduceLanes(VectorOperators.MAX);
        for (int i = vEnd; i < d; i++) {
            max = Math.max(max, x[xo + i]);
        }
        // NOTE: an infinite max would give inf - inf = NaN: shift by 0 there (as PyTorch).
        float shift = Float.isInfinite(max) ? 0f : max;
        FloatVector vsum = FloatVector.zero(S);
        for (int i = 0; i < vEnd; i += l) {
            FloatVector e = FloatVector.fromArray(S, x, xo + i).sub(shift).lanewise(VectorOperators.EXP);
            e.intoArray(y, yo + i);
            vsum = vsum.add(e);
        }
        double sum = vsum.reduceLanes(VectorOperators.ADD);
        for (int i = vEnd; i < d; i++) {
            float e = (float) Math.exp(x[xo + i] - shift);
            y[yo + i] = e;
            sum += e;
        }
        if (log) {
            float lse = (float) (Math.log(sum) + shift);
            for (int i = 0; i < vEnd; i += l) {
                FloatVector.fromArray(S, x, xo + i).sub(lse).intoArray(y, yo + i);
            }
            for (int i = vEnd; i < d; i++) {
                y[yo + i] = x[xo + i] - lse;
            }
        } else {
            float inv = (float) (1 / sum);
            for (int i = 0; i < vEnd; i += l) {
                FloatVector.fromArray(S, y, yo + i).mul(inv).intoArray(y, yo + i);
            }
            for (int i = vEnd; i < d; i++) {
                y[yo + i] *= inv;
            }
        }
    }

    static void softmaxBackwardRow(float[] y, int yo, float[] g, int go, float[] dx, int xo, int d, boolean log) {
        int l = S.length();
        int vEnd = d - d % l;
        FloatVector acc = FloatVector.zero(S);
        for (int i = 0; i < vEnd; i += l) {
            FloatVector gv = FloatVector.fromArray(S, g, go + i);
            acc = log ? acc.add(gv) : gv.fma(FloatVector.fromArray(S, y, yo + i), acc);
        }
        double dot = acc.reduceLanes(VectorOperators.ADD);
        for (int i = vEnd; i < d; i++) {
            dot += log ? g[go + i] : g[go + i] * y[yo + i];
        }
        float s = (float) dot;
        for (int i = 0; i < vEnd; i += l) {
            FloatVector yv = FloatVector.fromArray(S, y, yo + i);
            FloatVector gv = FloatVector.fromArray(S, g, go + i);
            FloatVector r = log ? gv.sub(yv.lanewise(VectorOperators.EXP).mul(s)) : yv.mul(gv.sub(s));
            r.intoArray(dx, xo + i);
        }
        for (int i = vEnd; i < d; i++) {
            dx[xo + i] = log ? g[go + i] - (float) Math.exp(y[yo + i]) * s : y[yo + i] * (g[go + i] - s);
        }
    }

    private static float sum(float[] x, int xo, int d) {
        int l = S.length();
        int vEnd = d - d % l;
        FloatVector acc = FloatVector.zero(S);
        for (int i = 0; i < vEnd; i += l) {
            acc = acc.add(FloatVector.fromArray(S, x, xo + i));
        }
        float s = acc.reduceLanes(VectorOperators.ADD);
        for (int i = vEnd; i < d; i++) {
            s += x[xo + i];
        }
        return s;
    }

    /**
     * One LayerNorm row. The mean is computed, then corrected by the mean of the residuals, so an
     * offset of 1000 costs no precision; the variance is taken around the corrected mean.
     */
    static void layerNormRow(float[] x, int xo, float[] w, float[] b, double eps, float[] out, int oo, float[] xhat,
                             int ho, float[] rstd, int ro, int d) {
        int l = S.length();
        int vEnd = d - d % l;
        float mean = sum(x, xo, d) / d;
        FloatVector acc = FloatVector.zero(S);
        FloatVector sq = FloatVector.zero(S);
        for (int i = 0; i < vEnd; i += l) {
            FloatVector c = FloatVector.fromArray(S, x, xo + i).sub(mean);
            acc = acc.add(c);
            sq = c.fma(c, sq);
        }
        double resid = acc.reduceLanes(VectorOperators.ADD);
        double ss = sq.reduceLanes(VectorOperators.ADD);
        for (int i = vEnd; i < d; i++) {
            double c = x[xo + i] - mean;
            resid += c;
            ss += c * c;
        }
        double delta = resid / d;
        // Σ(c − δ)² = Σc² − dδ²: the variance around the corrected mean.
        double var = Math.max(ss / d - delta * delta, 0);
        float m = (float) (mean + delta);
        float r = (float) (1 / Math.sqrt(var + eps));
        for (int i = 0; i < vEnd; i += l) {
            FloatVector h = FloatVector.fromArray(S, x, xo + i).sub(m).mul(r);
            h.intoArray(xhat, ho + i);
            h.fma(FloatVector.fromArray(S, w, i), FloatVector.fromArray(S, b, i)).intoArray(out, oo + i);
        }
        for (int i = vEnd; i < d; i++) {
            float h = (x[xo + i] - m) * r;
            xhat[ho + i] = h;
            out[oo + i] = h * w[i] + b[i];
        }
        rstd[ro] = r;
    }

    /** One row of LayerNorm's VJP; dw and db accumulate into the chunk's float partials. */
    static void layerNormBackwardRow(float[] g, int go, float[] w, float[] xh, int ho, float rs, float[] dx, int xo,
                                     float[] pw, float[] pb, int d) {
        int l = S.length();
        int vEnd = d - d % l;
        FloatVector am = FloatVector.zero(S);
        FloatVector ax = FloatVector.zero(S);
        for (int i = 0; i < vEnd; i += l) {
            FloatVector gv = FloatVector.fromArray(S, g, go + i);
            FloatVector h = FloatVector.fromArray(S, xh, ho + i);
            FloatVector gw = gv.mul(FloatVector.fromArray(S, w, i));
            am = am.add(gw);
            ax = gw.fma(h, ax);
            gv.fma(h, FloatVector.fromArray(S, pw, i)).intoArray(pw, i);
            gv.add(FloatVector.fromArray(S, pb, i)).intoArray(pb, i);
        }
        double mg = am.reduceLanes(VectorOperators.ADD);
        double mgx = ax.reduceLanes(VectorOperators.ADD);
        for (int i = vEnd; i < d; i++) {
            float gw = g[go + i] * w[i];
            mg += gw;
            mgx += gw * xh[ho + i];
            pw[i] += g[go + i] * xh[ho + i];
            pb[i] += g[go + i];
        }
        if (dx == null) {
            return;
        }
        float a = (float) (mg / d);
        float c = (float) (mgx / d);
        for (int i = 0; i < vEnd; i += l) {
            FloatVector gw = FloatVector.fromArray(S, g, go + i).mul(FloatVector.fromArray(S, w, i));
            FloatVector h = FloatVector.fromArray(S, xh, ho + i);
            gw.sub(a).sub(h.mul(c)).mul(rs).intoArray(dx, xo + i);
        }
        for (int i = vEnd; i < d; i++) {
            dx[xo + i] = rs * (g[go + i] * w[i] - a - xh[ho + i] * c);
        }
    }
}
