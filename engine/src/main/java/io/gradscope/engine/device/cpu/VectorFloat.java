package io.gradscope.engine.device.cpu;

import static io.gradscope.engine.device.cpu.FloatMath.BLOCK;
import static io.gradscope.engine.device.cpu.FloatMath.LANES;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Float32 kernels on contiguous ranges with the Vector API; loaded only when the module is present
 * ({@link CpuMatmul#VECTOR}). Each gives the bits of its plain twin in {@link FloatMath} and
 * {@link FloatKernels} (see Note [Exact operations only] and Note [Cascade sum] in FloatMath).
 */
final class VectorFloat {
    private VectorFloat() {
    }

    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    static final int L = S.length();
    /** Vectors per group of 16 lanes (1 with AVX-512, 2 with AVX2). */
    private static final int PER_GROUP = LANES / L;

    static {
        if (LANES % L != 0) {
            throw new ExceptionInInitializerError("vector length " + L + " does not divide " + LANES);
        }
    }

    // ---- canonical sums (Note [Cascade sum]) ------------------------------------------------------

    /** Σ x[o .. o+n). */
    static float sum(float[] x, int o, int n) {
        return sum(x, o, n, new float[LANES], n > BLOCK ? new FloatMath.Pairwise() : null);
    }

    /** Σ x[o .. o+n) with the scratch's lanes and stack. */
    static float sum(float[] x, int o, int n, FloatMath.Scratch sc) {
        sc.pa.reset();
        return sum(x, o, n, sc.a, sc.pa);
    }

    private static float sum(float[] x, int o, int n, float[] lanes, FloatMath.Pairwise pw) {
        for (int b = 0; b < n; b += BLOCK) {
            int m = Math.min(BLOCK, n - b);
            int full = m - m % LANES;
            int base = o + b;
            FloatVector a0 = FloatVector.zero(S);
            FloatVector a1 = FloatVector.zero(S);
            for (int i = 0; i < full; i += LANES) {
                a0 = a0.add(FloatVector.fromArray(S, x, base + i));
                if (PER_GROUP == 2) {
                    a1 = a1.add(FloatVector.fromArray(S, x, base + i + L));
                }
            }
            a0.intoArray(lanes, 0);
            if (PER_GROUP == 2) {
                a1.intoArray(lanes, L);
            }
            for (int i = full; i < m; i++) {
                lanes[i & (LANES - 1)] += x[base + i];
            }
            float s = FloatMath.fold(lanes);
            if (n <= BLOCK) {
                return s;
            }
            pw.push(s);
        }
        return n == 0 ? 0f : pw.result();
    }

    /** Σ a[i]·b[i], each product fused into its lane. */
    static float dot(float[] a, int ao, float[] b, int bo, int n) {
        return dot(a, ao, b, bo, n, new FloatMath.Scratch());
    }

    /** Σ a[i]·b[i] with the scratch's lanes and stack. */
    static float dot(float[] a, int ao, float[] b, int bo, int n, FloatMath.Scratch sc) {
        float[] lanes = sc.a;
        FloatMath.Pairwise pw = sc.pa;
        pw.reset();
        for (int s = 0; s < n; s += BLOCK) {
            int m = Math.min(BLOCK, n - s);
            int full = m - m % LANES;
            FloatVector a0 = FloatVector.zero(S);
            FloatVector a1 = FloatVector.zero(S);
            for (int i = 0; i < full; i += LANES) {
                a0 = FloatVector.fromArray(S, a, ao + s + i).fma(FloatVector.fromArray(S, b, bo + s + i), a0);
                if (PER_GROUP == 2) {
                    a1 = FloatVector.fromArray(S, a, ao + s + i + L).fma(FloatVector.fromArray(S, b, bo + s + i + L), a1);
                }
            }
            a0.intoArray(lanes, 0);
            if (PER_GROUP == 2) {
                a1.intoArray(lanes, L);
            }
            for (int i = full; i < m; i++) {
                int j = i & (LANES - 1);
                lanes[j] = Math.fma(a[ao + s + i], b[bo + s + i], lanes[j]);
            }
            pw.push(FloatMath.fold(lanes));
        }
        return pw.result();
    }

    /** Σ (x[i] − c) into {@code out[0]} and Σ (x[i] − c)² (fused) into {@code out[1]}. */
    static void deviationSums(float[] x, int o, int n, float c, float[] out) {
        float[] lanes = new float[LANES];
        float[] squares = new float[LANES];
        FloatMath.Pairwise pw = new FloatMath.Pairwise();
        FloatMath.Pairwise pq = new FloatMath.Pairwise();
        for (int s = 0; s < n; s += BLOCK) {
            int m = Math.min(BLOCK, n - s);
            int full = m - m % LANES;
            FloatVector a0 = FloatVector.zero(S);
            FloatVector a1 = FloatVector.zero(S);
            FloatVector q0 = FloatVector.zero(S);
            FloatVector q1 = FloatVector.zero(S);
            for (int i = 0; i < full; i += LANES) {
                FloatVector d0 = FloatVector.fromArray(S, x, o + s + i).sub(c);
                a0 = a0.add(d0);
                q0 = d0.fma(d0, q0);
                if (PER_GROUP == 2) {
                    FloatVector d1 = FloatVector.fromArray(S, x, o + s + i + L).sub(c);
                    a1 = a1.add(d1);
                    q1 = d1.fma(d1, q1);
                }
            }
            a0.intoArray(lanes, 0);
            q0.intoArray(squares, 0);
            if (PER_GROUP == 2) {
                a1.intoArray(lanes, L);
                q1.intoArray(squares, L);
            }
            for (int i = full; i < m; i++) {
                int j = i & (LANES - 1);
                float d = x[o + s + i] - c;
                lanes[j] += d;
                squares[j] = Math.fma(d, d, squares[j]);
            }
            pw.push(FloatMath.fold(lanes));
            pq.push(FloatMath.fold(squares));
        }
        out[0] = pw.result();
        out[1] = pq.result();
    }

    /**
     * Adds row {@code x[xo .. xo+n)} into {@code acc[ao .. ao+n)} (a lane of the column cascade,
     * {@link FloatReduce}).
     */
    static void addInto(float[] x, int xo, float[] acc, int ao, int n) {
        int i = 0;
        for (int end = n - n % L; i < end; i += L) {
            FloatVector.fromArray(S, acc, ao + i).add(FloatVector.fromArray(S, x, xo + i)).intoArray(acc, ao + i);
        }
        for (; i < n; i++) {
            acc[ao + i] += x[xo + i];
        }
    }

    /** y += alpha · x over n contiguous elements (the product rounded, then the sum, as the plain loop). */
    static void axpy(float alpha, float[] x, int xo, float[] y, int yo, int n) {
        int i = 0;
        FloatVector a = FloatVector.broadcast(S, alpha);
        for (int end = n - n % L; i < end; i += L) {
            FloatVector.fromArray(S, y, yo + i).add(FloatVector.fromArray(S, x, xo + i).mul(a)).intoArray(y, yo + i);
        }
        for (; i < n; i++) {
            y[yo + i] += alpha * x[xo + i];
        }
    }

    // ---- elementwise ------------------------------------------------------------------------------

    /** y = op(a, b) for contiguous a, b; false for kinds without a vector kernel. */
    static boolean binary(io.gradscope.engine.tensor.BinaryKind k, float[] a, int ao, float[] b, int bo, float[] y, int yo, int n) {
        int end = n - n % L;
        int i = 0;
        switch (k) {
            case ADD -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).add(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            case SUB -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).sub(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            case MUL -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).mul(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            case DIV -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).div(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            // As Math.max and Math.min: NaN wins, -0 < +0.
            case MAX -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).max(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            case MIN -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).min(FloatVector.fromArray(S, b, bo + i)).intoArray(y, yo + i); }
            case EQ, GT -> {
                FloatVector one = FloatVector.broadcast(S, 1f);
                FloatVector zero = FloatVector.zero(S);
                VectorOperators.Comparison c = k == io.gradscope.engine.tensor.BinaryKind.EQ ? VectorOperators.EQ : VectorOperators.GT;
                for (; i < end; i += L) {
                    zero.blend(one, FloatVector.fromArray(S, a, ao + i).compare(c, FloatVector.fromArray(S, b, bo + i))).intoArray(y, yo + i);
                }
            }
            default -> { return false; }
        }
        FloatKernels.binaryPlain(k, a, ao + i, 1, b, bo + i, 1, y, yo + i, 1, n - i);
        return true;
    }

    /** y = op(a, s) (or op(s, a) with {@code scalarFirst}) for contiguous a. */
    static boolean binaryScalar(io.gradscope.engine.tensor.BinaryKind k, float[] a, int ao, float s, boolean scalarFirst,
                                float[] y, int yo, int n) {
        int end = n - n % L;
        int i = 0;
        switch (k) {
            case ADD -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).add(s).intoArray(y, yo + i); }
            case MUL -> { for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).mul(s).intoArray(y, yo + i); }
            case SUB -> {
                if (scalarFirst) {
                    FloatVector sv = FloatVector.broadcast(S, s);
                    for (; i < end; i += L) sv.sub(FloatVector.fromArray(S, a, ao + i)).intoArray(y, yo + i);
                } else {
                    for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).sub(s).intoArray(y, yo + i);
                }
            }
            case DIV -> {
                if (scalarFirst) {
                    FloatVector sv = FloatVector.broadcast(S, s);
                    for (; i < end; i += L) sv.div(FloatVector.fromArray(S, a, ao + i)).intoArray(y, yo + i);
                } else {
                    for (; i < end; i += L) FloatVector.fromArray(S, a, ao + i).div(s).intoArray(y, yo + i);
                }
            }
            default -> { return false; }
        }
        if (scalarFirst) {
            FloatKernels.binaryScalarFirstPlain(k, s, a, ao + i, y, yo + i, n - i);
        } else {
            FloatKernels.binaryScalarPlain(k, a, ao + i, s, y, yo + i, n - i);
        }
        return true;
    }

    /** y = f(x) for contiguous x; false for kinds without a vector kernel. */
    static boolean unary(io.gradscope.engine.tensor.UnaryKind k, double p, float[] x, int xo, float[] y, int yo, int n) {
        int end = n - n % L;
        int i = 0;
        FloatVector zero = FloatVector.zero(S);
        FloatVector one = FloatVector.broadcast(S, 1f);
        switch (k) {
            case NEG -> { for (; i < end; i += L) FloatVector.fromArray(S, x, xo + i).neg().intoArray(y, yo + i); }
            case ABS -> { for (; i < end; i += L) FloatVector.fromArray(S, x, xo + i).abs().intoArray(y, yo + i); }
            case SQRT -> { for (; i < end; i += L) FloatVector.fromArray(S, x, xo + i).sqrt().intoArray(y, yo + i); }
            case RELU -> { for (; i < end; i += L) FloatVector.fromArray(S, x, xo + i).max(0f).intoArray(y, yo + i); }
            case STEP -> {
                for (; i < end; i += L) {
                    // 1 where x > 0: 0 at NaN, as UnaryKind.STEP (relu's derivative adds the NaN lanes itself).
                    VectorMask<Float> pos = FloatVector.fromArray(S, x, xo + i).compare(VectorOperators.GT, 0f);
                    zero.blend(one, pos).intoArray(y, yo + i);
                }
            }
            case EXP -> {
                // exp(x − 0) is exp(x): x − 0 is x exactly.
                expShift(x, xo, 0f, y, yo, n);
                return true;
            }
            case POW -> {
                if (p != 2) {
                    return false;
                }
                for (; i < end; i += L) {
                    FloatVector v = FloatVector.fromArray(S, x, xo + i);
                    v.mul(v).intoArray(y, yo + i);
                }
            }
            default -> { return false; }
        }
        FloatKernels.unaryPlain(k, p, x, xo + i, 1, y, yo + i, 1, n - i);
        return true;
    }

    /** dx = g ⊙ [x > 0] (ReLU's VJP in one pass), the product as the unfused g · step(x). */
    static void reluBackward(float[] x, int xo, float[] g, int go, float[] dx, int dxo, int n) {
        int end = n - n % L;
        int i = 0;
        FloatVector zero = FloatVector.zero(S);
        FloatVector one = FloatVector.broadcast(S, 1f);
        for (; i < end; i += L) {
            VectorMask<Float> pos = FloatVector.fromArray(S, x, xo + i).compare(VectorOperators.GT, 0f);
            FloatVector.fromArray(S, g, go + i).mul(zero.blend(one, pos)).intoArray(dx, dxo + i);
        }
        for (; i < n; i++) {
            dx[dxo + i] = g[go + i] * (x[xo + i] <= 0 ? 0f : 1f);
        }
    }

    // ---- row pieces (softmax, LayerNorm, cross-entropy) -----------------------------------------

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
        return sum(y, yo, n, sc);
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
