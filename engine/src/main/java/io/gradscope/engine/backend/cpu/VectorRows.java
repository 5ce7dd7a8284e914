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
}
