package io.gradscope.engine.device.cpu;

/**
 * Float32 arithmetic defined once, so the Vector API kernels ({@link VectorFloat}) and the plain
 * loops give the same bits: an exp built from exactly rounded operations only, and the canonical
 * cascade sum.
 *
 * <p>Note [Exact operations only]: a vector kernel and its plain twin agree bit for bit only when
 * every step is an IEEE operation with one rounding (+, −, ×, ÷, fma, sqrt, min/max, conversions).
 * The Vector API's transcendental lanewise ops (EXP, ...) call SVML once the JIT has compiled a
 * kernel and {@code Math} before, so the same call could give other bits after warm-up; its float
 * lane reductions leave the order open. Neither is used: {@link #exp} is a polynomial, and sums
 * store their lanes and add them in a fixed order.
 *
 * <p>Note [Cascade sum]: a float32 sum of n elements runs in blocks of {@link #BLOCK}; inside a
 * block, element i goes to lane {@code i mod 16}, each lane adds in order, and the 16 lanes are
 * folded in halves (lane j + lane j+8, then j+4, ...). Block sums are added pairwise (a binary
 * counter: two partial sums of equal size are added as soon as both exist). The error grows like
 * 16 + log₂(n/256) roundings rather than n, as PyTorch's cascade sum; the order depends on n only,
 * so contiguous and strided inputs (gathered first) give the same bits.
 */
final class FloatMath {
    private FloatMath() {
    }

    static final int LANES = 16;
    static final int BLOCK = 256;

    // exp(x) = 2^n · e^r, n = round(x / ln 2), r = x − n ln 2 (ln 2 in two parts), e^r by a degree-6 polynomial.
    static final float LOG2E = 1.44269504088896341f;
    static final float LN2_HI = 0.693359375f;
    static final float LN2_LO = -2.12194440e-4f;
    /** 1.5 · 2^23: adding it rounds a float of magnitude below 2^22 to an integer (to nearest even). */
    static final float ROUNDER = 12582912f;
    static final int ROUNDER_BITS = 0x4B400000;
    static final float EXP_HI = 88.8f;
    static final float EXP_LO = -104f;
    static final float P0 = 1.9875691500e-4f;
    static final float P1 = 1.3981999507e-3f;
    static final float P2 = 8.3334519073e-3f;
    static final float P3 = 4.1665795894e-2f;
    static final float P4 = 1.6666665459e-1f;
    static final float P5 = 5.0000001201e-1f;

    /**
     * e^x in float32 within about 1 ulp (Cephes' expf polynomial, evaluated with fma). Overflows to
     * +∞ above 88.72, underflows through the subnormals to 0, keeps NaN. {@link VectorRows#expShift}
     * does the same operations lane by lane.
     */
    static float exp(float x) {
        float c = Math.min(Math.max(x, EXP_LO), EXP_HI);
        float t = Math.fma(c, LOG2E, ROUNDER);
        int n = Float.floatToRawIntBits(t) - ROUNDER_BITS;
        float k = t - ROUNDER;
        float r = Math.fma(k, -LN2_HI, c);
        r = Math.fma(k, -LN2_LO, r);
        float p = Math.fma(P0, r, P1);
        p = Math.fma(p, r, P2);
        p = Math.fma(p, r, P3);
        p = Math.fma(p, r, P4);
        p = Math.fma(p, r, P5);
        float r2 = r * r;
        float e = Math.fma(p, r2, r) + 1f;
        // 2^n in two factors, each a normal float for n in [-150, 128].
        int n1 = n >> 1;
        int n2 = n - n1;
        return e * Float.intBitsToFloat((n1 + 127) << 23) * Float.intBitsToFloat((n2 + 127) << 23);
    }

    /** Folds 16 lane sums in halves: (j, j+8), then (j, j+4), (j, j+2), (0, 1); written out, it is called per block. */
    static float fold(float[] l) {
        float a0 = l[0] + l[8];
        float a1 = l[1] + l[9];
        float a2 = l[2] + l[10];
        float a3 = l[3] + l[11];
        float a4 = l[4] + l[12];
        float a5 = l[5] + l[13];
        float a6 = l[6] + l[14];
        float a7 = l[7] + l[15];
        a0 += a4;
        a1 += a5;
        a2 += a6;
        a3 += a7;
        a0 += a2;
        a1 += a3;
        return a0 + a1;
    }

    /**
     * Pairwise combining of block sums (Note [Cascade sum]): {@link #push} after each block,
     * {@link #result} at the end. Lives on the stack of one sum; 40 levels cover any array.
     */
    static final class Pairwise {
        private final float[] stack = new float[40];
        private int top;
        private int blocks;

        void push(float s) {
            stack[top++] = s;
            blocks++;
            for (int m = blocks; (m & 1) == 0; m >>= 1) {
                stack[top - 2] = stack[top - 2] + stack[top - 1];
                top--;
            }
        }

        float result() {
            if (top == 0) {
                return 0f;
            }
            float r = stack[top - 1];
            for (int i = top - 2; i >= 0; i--) {
                r = stack[i] + r;
            }
            return r;
        }

        void reset() {
            top = 0;
            blocks = 0;
        }
    }

    /** {@link #sum} (the scratch is not needed by the plain loops). */
    static float sum(float[] x, int o, int n, Scratch sc) {
        return sum(x, o, n);
    }

    /** Σ x[o .. o+n), the canonical cascade sum; plain loops. */
    static float sum(float[] x, int o, int n) {
        if (n <= BLOCK) {
            return blockSum(x, o, n, new float[LANES]);
        }
        Pairwise pw = new Pairwise();
        float[] lanes = new float[LANES];
        for (int b = 0; b < n; b += BLOCK) {
            java.util.Arrays.fill(lanes, 0f);
            pw.push(blockSum(x, o + b, Math.min(BLOCK, n - b), lanes));
        }
        return pw.result();
    }

    private static float blockSum(float[] x, int o, int n, float[] lanes) {
        for (int i = 0; i < n; i++) {
            lanes[i & (LANES - 1)] += x[o + i];
        }
        return fold(lanes);
    }

    /** Σ a[i]·b[i] in the canonical cascade, each product fused into its lane (fma); plain loops. */
    static float dot(float[] a, int ao, float[] b, int bo, int n) {
        return dot(a, ao, b, bo, n, new Scratch());
    }

    /** {@link #dot} with the scratch's lanes and stack. */
    static float dot(float[] a, int ao, float[] b, int bo, int n, Scratch sc) {
        Pairwise pw = sc.pa;
        pw.reset();
        float[] lanes = sc.a;
        for (int s = 0; s < n; s += BLOCK) {
            int m = Math.min(BLOCK, n - s);
            java.util.Arrays.fill(lanes, 0f);
            for (int i = 0; i < m; i++) {
                int j = i & (LANES - 1);
                lanes[j] = Math.fma(a[ao + s + i], b[bo + s + i], lanes[j]);
            }
            pw.push(fold(lanes));
        }
        return pw.result();
    }

    /** Σ (x[i] − c) into {@code out[0]} and Σ (x[i] − c)² (fused) into {@code out[1]}, canonical cascades; plain loops. */
    static void deviationSums(float[] x, int o, int n, float c, float[] out) {
        Pairwise pw = new Pairwise();
        Pairwise pq = new Pairwise();
        float[] lanes = new float[LANES];
        float[] squares = new float[LANES];
        for (int s = 0; s < n; s += BLOCK) {
            int m = Math.min(BLOCK, n - s);
            java.util.Arrays.fill(lanes, 0f);
            java.util.Arrays.fill(squares, 0f);
            for (int i = 0; i < m; i++) {
                int j = i & (LANES - 1);
                float d = x[o + s + i] - c;
                lanes[j] += d;
                squares[j] = Math.fma(d, d, squares[j]);
            }
            pw.push(fold(lanes));
            pq.push(fold(squares));
        }
        out[0] = pw.result();
        out[1] = pq.result();
    }

    /** Per-task scratch for the fused row kernels: lane arrays and pairwise stacks, reused row after row. */
    static final class Scratch {
        final float[] a = new float[LANES];
        final float[] b = new float[LANES];
        final Pairwise pa = new Pairwise();
        final Pairwise pb = new Pairwise();
        /** Results of kernels that give two sums. */
        final float[] out = new float[2];
    }

    /** y = exp(x − shift), returning Σ y (the bits of {@link #sum} over y); plain loops. */
    static float expSum(float[] x, int xo, float shift, float[] y, int yo, int n, Scratch sc) {
        float[] lanes = sc.a;
        Pairwise pw = sc.pa;
        pw.reset();
        for (int s = 0; s < n; s += BLOCK) {
            int m = Math.min(BLOCK, n - s);
            java.util.Arrays.fill(lanes, 0f);
            for (int i = 0; i < m; i++) {
                float e = exp(x[xo + s + i] - shift);
                y[yo + s + i] = e;
                lanes[i & (LANES - 1)] += e;
            }
            pw.push(fold(lanes));
        }
        return pw.result();
    }

    /**
     * One row of LayerNorm's VJP, first pass: h = ((x − m) − δ)·r and gw = g ⊙ w into the row
     * buffers, Σ gw into {@code sc.out[0]} and Σ gw·h (fused) into {@code sc.out[1]} (the bits of
     * {@link #sum} and {@link #dot}), and, when {@code lw} is not null, the lane rows lw += g·h
     * (fused) and lb += g at {@code lo}; plain loops.
     */
    static void layerNormBackRow(float[] g, int go, float[] x, int xo, float[] w, float m, float delta, float r, float[] h,
                                 float[] gw, float[] lw, float[] lb, int lo, int n, Scratch sc) {
        float[] la = sc.a;
        float[] lc = sc.b;
        Pairwise pa = sc.pa;
        Pairwise pc = sc.pb;
        pa.reset();
        pc.reset();
        for (int s = 0; s < n; s += BLOCK) {
            int len = Math.min(BLOCK, n - s);
            java.util.Arrays.fill(la, 0f);
            java.util.Arrays.fill(lc, 0f);
            for (int i = s; i < s + len; i++) {
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
            pa.push(fold(la));
            pc.push(fold(lc));
        }
        sc.out[0] = pa.result();
        sc.out[1] = pc.result();
    }
}
