package io.gradscope.engine.backend.cpu;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Float32 softmax and LayerNorm rows with the Vector API (a vectorized exp); used only when the
 * module is present ({@link CpuMatmul#VECTOR}). Softmax sums are kept per lane in float, as
 * PyTorch's float kernels do; LayerNorm's statistics are in double.
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

    /** Double lanes, and float lanes of the same count (half the width), for float rows computed in double. */
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> SH = VectorSpecies.of(float.class, VectorShape.forBitSize(D.vectorBitSize() / 2));

    private static DoubleVector widen(float[] a, int at) {
        return (DoubleVector) FloatVector.fromArray(SH, a, at).convertShape(VectorOperators.F2D, D, 0);
    }

    private static void narrow(DoubleVector v, float[] a, int at) {
        ((FloatVector) v.convertShape(VectorOperators.D2F, SH, 0)).intoArray(a, at);
    }

    /**
     * One LayerNorm row, as the CUDA kernel computes it: the mean, the centring and the variance
     * (two passes) in double, each value rounded to float once at the end. NOTE: a float mean
     * loses the row's precision when the mean is large against the spread (a row around 1000 came
     * out 2.3e-4 off); PyTorch too accumulates float rows in a wider type.
     */
    static void layerNormRow(float[] x, int xo, float[] w, float[] b, double eps, float[] out, int oo, float[] xhat,
                             int ho, float[] rstd, int ro, int d) {
        int l = D.length();
        int vEnd = d - d % l;
        DoubleVector acc = DoubleVector.zero(D);
        for (int i = 0; i < vEnd; i += l) {
            acc = acc.add(widen(x, xo + i));
        }
        double sum = acc.reduceLanes(VectorOperators.ADD);
        for (int i = vEnd; i < d; i++) {
            sum += x[xo + i];
        }
        double mean = sum / d;
        DoubleVector sq = DoubleVector.zero(D);
        for (int i = 0; i < vEnd; i += l) {
            DoubleVector c = widen(x, xo + i).sub(mean);
            sq = c.fma(c, sq);
        }
        double ss = sq.reduceLanes(VectorOperators.ADD);
        for (int i = vEnd; i < d; i++) {
            double c = x[xo + i] - mean;
            ss += c * c;
        }
        double r = 1 / Math.sqrt(ss / d + eps);
        for (int i = 0; i < vEnd; i += l) {
            DoubleVector h = widen(x, xo + i).sub(mean).mul(r);
            narrow(h, xhat, ho + i);
            narrow(h.fma(widen(w, i), widen(b, i)), out, oo + i);
        }
        for (int i = vEnd; i < d; i++) {
            double h = (x[xo + i] - mean) * r;
            xhat[ho + i] = (float) h;
            out[oo + i] = (float) (h * w[i] + b[i]);
        }
        rstd[ro] = (float) r;
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
