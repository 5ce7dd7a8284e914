package io.gradscope.engine.device.cpu;

import static io.gradscope.engine.device.cpu.FloatMath.BLOCK;
import static io.gradscope.engine.device.cpu.FloatMath.LANES;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Float32 row pieces of softmax, log-softmax, LayerNorm and cross-entropy on contiguous rows with
 * the Vector API: max, shifted exponentials and their sums, normalisation and the backward rows.
 * Each gives the bits of its plain twin in {@link FloatMath} (Note [Cascade sum]).
 */
final class VectorRows {
    private VectorRows() {
    }

    private static final VectorSpecies<Float> S = VectorFloat.S;
    private static final int L = VectorFloat.L;
    /** Vectors per group of 16 lanes (1 with AVX-512, 2 with AVX2). */
    private static final int PER_GROUP = VectorFloat.PER_GROUP;

    /** max of x[o .. o+n) (NaN wins; order does not matter for max, so four accumulators hide the latency). */
    static float max(float[] x, int o, int n) {
        int end4 = n - n % (4 * L);
        int end = n - n % L;
        FloatVector m0 = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        FloatVector m1 = m0;
        FloatVector m2 = m0;
        FloatVector m3 = m0;
        int i = 0;
        for (; i < end4; i += 4 * L) {
            m0 = m0.max(FloatVector.fromArray(S, x, o + i));
            m1 = m1.max(FloatVector.fromArray(S, x, o + i + L));
            m2 = m2.max(FloatVector.fromArray(S, x, o + i + 2 * L));
            m3 = m3.max(FloatVector.fromArray(S, x, o + i + 3 * L));
        }
        for (; i < end; i += L) {
            m0 = m0.max(FloatVector.fromArray(S, x, o + i));
        }
        float[] lanes = new float[L];
        m0.max(m1).max(m2.max(m3)).intoArray(lanes, 0);
        float r = Float.NEGATIVE_INFINITY;
        for (float v : lanes) {
            r = Math.max(r, v);
        }
        for (; i < n; i++) {
            r = Math.max(r, x[o + i]);
        }
        return r;
    }

    /**
     * y = exp(x − shift), {@link FloatMath#exp} lane by lane: the same operations in the same order.
     *
     * <p>the only place the vector exp is written. Handing a vector to a helper that the JIT
     * does not inline (its compiled code grows past the inlining limit once several callers use it)
     * boxes every vector and costs a factor of three or more; every exp goes through this loop.
     */
    static void expShift(float[] x, int xo, float shift, float[] y, int yo, int n) {
        int end = n - n % L;
        int i = 0;
        FloatVector nln2hi = FloatVector.broadcast(S, -FloatMath.LN2_HI);
        FloatVector nln2lo = FloatVector.broadcast(S, -FloatMath.LN2_LO);
        FloatVector p2 = FloatVector.broadcast(S, FloatMath.P2);
        FloatVector p3 = FloatVector.broadcast(S, FloatMath.P3);
        FloatVector p4 = FloatVector.broadcast(S, FloatMath.P4);
        FloatVector p5 = FloatVector.broadcast(S, FloatMath.P5);
        for (; i < end; i += L) {
            FloatVector c = FloatVector.fromArray(S, x, xo + i).sub(shift).max(FloatMath.EXP_LO).min(FloatMath.EXP_HI);
            FloatVector t = c.fma(FloatMath.LOG2E, FloatMath.ROUNDER);
            IntVector k = (IntVector) t.reinterpretAsInts().sub(FloatMath.ROUNDER_BITS);
            FloatVector kf = t.sub(FloatMath.ROUNDER);
            FloatVector r = kf.fma(nln2hi, c);
            r = kf.fma(nln2lo, r);
            FloatVector p = r.fma(FloatMath.P0, FloatMath.P1);
            p = p.fma(r, p2);
            p = p.fma(r, p3);
            p = p.fma(r, p4);
            p = p.fma(r, p5);
            FloatVector e = p.fma(r.mul(r), r).add(1f);
            IntVector k1 = k.lanewise(VectorOperators.ASHR, 1);
            IntVector k2 = k.sub(k1);
            FloatVector s1 = k1.add(127).lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
            FloatVector s2 = k2.add(127).lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
            e.mul(s1).mul(s2).intoArray(y, yo + i);
        }
        for (; i < n; i++) {
            y[yo + i] = FloatMath.exp(x[xo + i] - shift);
        }
    }

    /** y = ((x − m) − δ)·r, and out = fma(y, w, b) when out is not null (LayerNorm's x̂ and output). */
    static void normalize(float[] x, int xo, float m, float delta, float r, float[] y, int yo, float[] w, float[] b, float[] out,
                          int oo, int n) {
        int end = n - n % L;
        int i = 0;
        for (; i < end; i += L) {
            FloatVector h = FloatVector.fromArray(S, x, xo + i).sub(m).sub(delta).mul(r);
            if (y != null) {
                h.intoArray(y, yo + i);
            }
            if (out != null) {
                h.fma(FloatVector.fromArray(S, w, i), FloatVector.fromArray(S, b, i)).intoArray(out, oo + i);
            }
        }
        for (; i < n; i++) {
            float h = ((x[xo + i] - m) - delta) * r;
            if (y != null) {
                y[yo + i] = h;
            }
            if (out != null) {
                out[oo + i] = Math.fma(h, w[i], b[i]);
            }
        }
    }

    /** dx = r · fma(h, −c, gw − a): LayerNorm's input gradient from ĝ = g ⊙ w and x̂. */
    static void layerNormDx(float[] gw, float[] h, float a, float c, float r, float[] dx, int dxo, int n) {
        int end = n - n % L;
        int i = 0;
        for (; i < end; i += L) {
            FloatVector t = FloatVector.fromArray(S, gw, i).sub(a);
            FloatVector.fromArray(S, h, i).fma(FloatVector.broadcast(S, -c), t).mul(r).intoArray(dx, dxo + i);
        }
        for (; i < n; i++) {
            dx[dxo + i] = Math.fma(h[i], -c, gw[i] - a) * r;
        }
    }

    /** acc += a ⊙ b, each product fused. */
    static void fmaInto(float[] a, int ao, float[] b, int bo, float[] acc, int co, int n) {
        int end = n - n % L;
        int i = 0;
        for (; i < end; i += L) {
            FloatVector.fromArray(S, a, ao + i).fma(FloatVector.fromArray(S, b, bo + i), FloatVector.fromArray(S, acc, co + i))
                    .intoArray(acc, co + i);
        }
        for (; i < n; i++) {
            acc[co + i] = Math.fma(a[ao + i], b[bo + i], acc[co + i]);
        }
    }

    /** dx = g − exp(y)·s (log-softmax's VJP row): exp(y) into dx first (y − 0 is y exactly), then combined. */
    static void logSoftmaxDx(float[] y, int yo, float[] g, int go, float s, float[] dx, int xo, int n) {
        expShift(y, yo, 0f, dx, xo, n);
        int end = n - n % L;
        int i = 0;
        for (; i < end; i += L) {
            FloatVector.fromArray(S, g, go + i).sub(FloatVector.fromArray(S, dx, xo + i).mul(s)).intoArray(dx, xo + i);
        }
        for (; i < n; i++) {
            dx[xo + i] = g[go + i] - dx[xo + i] * s;
        }
    }

    /** dx = y ⊙ (g − s) (softmax's VJP row). */
    static void softmaxDx(float[] y, int yo, float[] g, int go, float s, float[] dx, int xo, int n) {
        int end = n - n % L;
        int i = 0;
        for (; i < end; i += L) {
            FloatVector.fromArray(S, y, yo + i).mul(FloatVector.fromArray(S, g, go + i).sub(s)).intoArray(dx, xo + i);
        }
        for (; i < n; i++) {
            dx[xo + i] = y[yo + i] * (g[go + i] - s);
        }
    }

    /** {@link FloatMath#expSum} with vectors (the exps, then their cascade sum from L1): the same bits. */
    static float expSum(float[] x, int xo, float shift, float[] y, int yo, int n, FloatMath.Scratch sc) {
        expShift(x, xo, shift, y, yo, n);
        return VectorFloat.sum(y, yo, n, sc);
    }

    /** {@link FloatMath#layerNormBackRow} with vectors: the same bits. */
    static void layerNormBackRow(float[] g, int go, float[] x, int xo, float[] w, float m, float delta, float r, float[] h,
                                 float[] gw, float[] lw, float[] lb, int lo, int n, FloatMath.Scratch sc) {
        float[] la = sc.a;
        float[] lc = sc.b;
        FloatMath.Pairwise pa = sc.pa;
        FloatMath.Pairwise pc = sc.pb;
        pa.reset();
        pc.reset();
        for (int s = 0; s < n; s += BLOCK) {
            int len = Math.min(BLOCK, n - s);
            int full = len - len % LANES;
            FloatVector ga0 = FloatVector.zero(S);
            FloatVector ga1 = FloatVector.zero(S);
            FloatVector gc0 = FloatVector.zero(S);
            FloatVector gc1 = FloatVector.zero(S);
            // Written out for the second vector of a group rather than looped over with a branch on
            // which one: C2 (Java 17) boxed the four accumulators through that loop's merges, and
            // with AVX2 (two vectors a group) the row ran at a third of its speed, allocating.
            for (int i = s; i < s + full; i += LANES) {
                FloatVector hv = FloatVector.fromArray(S, x, xo + i).sub(m).sub(delta).mul(r);
                FloatVector gv = FloatVector.fromArray(S, g, go + i);
                FloatVector t = gv.mul(FloatVector.fromArray(S, w, i));
                hv.intoArray(h, i);
                t.intoArray(gw, i);
                ga0 = ga0.add(t);
                gc0 = t.fma(hv, gc0);
                if (lw != null) {
                    gv.fma(hv, FloatVector.fromArray(S, lw, lo + i)).intoArray(lw, lo + i);
                    gv.add(FloatVector.fromArray(S, lb, lo + i)).intoArray(lb, lo + i);
                }
                if (PER_GROUP == 2) {
                    int k = i + L;
                    FloatVector hv1 = FloatVector.fromArray(S, x, xo + k).sub(m).sub(delta).mul(r);
                    FloatVector gv1 = FloatVector.fromArray(S, g, go + k);
                    FloatVector t1 = gv1.mul(FloatVector.fromArray(S, w, k));
                    hv1.intoArray(h, k);
                    t1.intoArray(gw, k);
                    ga1 = ga1.add(t1);
                    gc1 = t1.fma(hv1, gc1);
                    if (lw != null) {
                        gv1.fma(hv1, FloatVector.fromArray(S, lw, lo + k)).intoArray(lw, lo + k);
                        gv1.add(FloatVector.fromArray(S, lb, lo + k)).intoArray(lb, lo + k);
                    }
                }
            }
            ga0.intoArray(la, 0);
            gc0.intoArray(lc, 0);
            if (PER_GROUP == 2) {
                ga1.intoArray(la, L);
                gc1.intoArray(lc, L);
            }
            for (int i = s + full; i < s + len; i++) {
                int j = (i - s) & (LANES - 1);
                float hv = ((x[xo + i] - m) - delta) * r;
                float gv = g[go + i];
                float t = gv * w[i];
                h[i] = hv;
                gw[i] = t;
                la[j] += t;
                lc[j] = Math.fma(t, hv, lc[j]);
                if (lw != null) {
                    lw[lo + i] = Math.fma(gv, hv, lw[lo + i]);
                    lb[lo + i] += gv;
                }
            }
            pa.push(FloatMath.fold(la));
            pc.push(FloatMath.fold(lc));
        }
        sc.out[0] = pa.result();
        sc.out[1] = pc.result();
    }
}
