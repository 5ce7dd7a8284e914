package io.gradscope.engine.device.cpu;

import static io.gradscope.engine.device.cpu.FloatMath.BLOCK;
import static io.gradscope.engine.device.cpu.FloatMath.LANES;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Float32 sums on contiguous ranges with the Vector API (the canonical cascade sums, dot products,
 * deviation sums, axpy), and the species the vector kernels share; loaded only when the module is
 * present ({@link CpuMatmul#VECTOR}). Elementwise kernels are in {@link VectorElementwise}, the rows
 * of softmax, LayerNorm and cross-entropy in {@link VectorRows}. Each gives the bits of its plain
 * twin in {@link FloatMath} and {@link FloatKernels} (see Note [Exact operations only] and Note
 * [Cascade sum] in FloatMath).
 */
final class VectorFloat {
    private VectorFloat() {
    }

    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    static final int L = S.length();
    /** Vectors per group of 16 lanes (1 with AVX-512, 2 with AVX2). */
    static final int PER_GROUP = LANES / L;

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
}
