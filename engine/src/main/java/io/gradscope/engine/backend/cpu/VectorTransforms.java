package io.gradscope.engine.backend.cpu;

import io.gradscope.engine.tensor.Tensor;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link WinogradTransforms}' input transform and the first half of its output transform with the
 * Vector API, along a row of tiles: the same adds in the same order as the plain loops, so the
 * same bits (FastWindowsTest checks both against each other and against float64 sums). Loaded
 * only when the module is present ({@link CpuMatmul#VECTOR}); {@code -Dgradscope.windows=plain}
 * keeps the plain loops ({@link WindowKernels#fast}, read at each call, to compare in one JVM:
 * scripts/bench/step_ab.sh).
 *
 * <p>Note [Vector transforms]: in a steady resnet18 step (perf, 2 cores) the plain input transform
 * alone was 8% of the samples, the output's 3%; timed alone on 64 channels at 56x56, the input
 * transform takes 0.37 ms here against 0.73 (0.33 against 0.41 at 128 x 28x28, whose rows of 14
 * tiles are shorter than a vector of 16), the output's 0.23 against 0.35. Vectors of the
 * preferred width, as the engine's other kernels: with 8-lane vectors (256 bits, so that a row of
 * 14 tiles at 28x28 would use one) the compiled step boxed every vector (173 MB allocated a step
 * against 3 MB, resnet18 1.2-1.5x slower than on the plain loops; a transform timed alone ran twice
 * as fast): the 256-bit classes' generic methods, compiled on their own before the JIT reached
 * these loops, were too big to inline, the same failure as Note [Inlined write-back] in VectorGemm.
 * Each vector loop is also a small method of its own. Where a row of tiles is no multiple of the
 * lanes, its last vector overlaps the one before (writing the same values again); rows shorter
 * than a vector take the plain loop.
 */
final class VectorTransforms {
    private VectorTransforms() {
    }

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();

    /** Per thread: the row halves of the input transform, or the output's half transform. */
    private static final ThreadLocal<float[][]> SCRATCH = ThreadLocal.withInitial(() -> new float[1][0]);

    private static float[] scratch(int n) {
        float[][] s = SCRATCH.get();
        if (s[0].length < n) {
            s[0] = new float[n];
        }
        return s[0];
    }

    /** {@link WinogradTransforms#input(Tensor, int, int, int, int, int, int, int, float[], int, int)}, vectorized. */
    static void input(Tensor x, int n, int c, int ph, int pw, int ty0, int ty1, int tw, float[] v, int vo, int plane) {
        int th = ty1 - ty0;
        int[] s = x.shape();
        int[] st = x.strides();
        int h = s[2];
        int w = s[3];
        int rs = st[2];
        int cs = st[3];
        float[] xf = x.storage().floats();
        int base = x.offset() + n * st[0] + c * st[1];
        int rows = 2 * th + 2;
        int per = rows * tw;
        float[] e = scratch(4 * per + 2 * (tw + 1));
        int ev = 4 * per;
        int od = ev + tw + 1;
        // q in [qlo, qhi): both 2q − pw and 2q + 1 − pw inside the row
        int qlo = Math.min(tw + 1, (pw + 1) / 2);
        int qhi = Math.max(qlo, Math.min(tw + 1, (w + pw) / 2));
        for (int rr = 0; rr < rows; rr++) {
            int r = rr + 2 * ty0 - ph;
            int at = rr * tw;
            if (r < 0 || r >= h) {
                for (int b = 0; b < 4; b++) {
                    java.util.Arrays.fill(e, b * per + at, b * per + at + tw, 0f);
                }
                continue;
            }
            int row = base + r * rs;
            for (int q = 0; q <= tw; q++) {
                if (q == qlo && cs == 1) {
                    // the row's inside: no bounds to test
                    for (int src = row + 2 * q - pw; q < qhi; q++, src += 2) {
                        e[ev + q] = xf[src];
                        e[od + q] = xf[src + 1];
                    }
                    if (q > tw) {
                        break;
                    }
                }
                int col = 2 * q - pw;
                e[ev + q] = col >= 0 && col < w ? xf[row + col * cs] : 0f;
                e[od + q] = col + 1 >= 0 && col + 1 < w ? xf[row + (col + 1) * cs] : 0f;
            }
            rowHalves(e, ev, od, at, per, tw);
        }
        for (int ty = 0; ty < th; ty++) {
            int t = vo + ty * tw;
            for (int b = 0; b < 4; b++) {
                tileColumns(e, b * per + 2 * ty * tw, tw, v, t + b * plane, plane);
            }
        }
    }

    /** One input row's half transform {@code d B} for every tile of the row, from its even and odd columns. */
    private static void rowHalves(float[] e, int ev, int od, int at, int per, int tw) {
        if (tw >= L) {
            // the last vector overlaps the one before where tw is no multiple of L: the same values written again
            for (int i = 0; i < tw; i += L) {
                int tx = Math.min(i, tw - L);
                FloatVector d0 = FloatVector.fromArray(S, e, ev + tx);
                FloatVector d1 = FloatVector.fromArray(S, e, od + tx);
                FloatVector d2 = FloatVector.fromArray(S, e, ev + tx + 1);
                FloatVector d3 = FloatVector.fromArray(S, e, od + tx + 1);
                d0.sub(d2).intoArray(e, at + tx);
                d1.add(d2).intoArray(e, per + at + tx);
                d2.sub(d1).intoArray(e, 2 * per + at + tx);
                d1.sub(d3).intoArray(e, 3 * per + at + tx);
            }
            return;
        }
        for (int tx = 0; tx < tw; tx++) {
            float d0 = e[ev + tx];
            float d1 = e[od + tx];
            float d2 = e[ev + tx + 1];
            float d3 = e[od + tx + 1];
            e[at + tx] = d0 - d2;
            e[per + at + tx] = d1 + d2;
            e[2 * per + at + tx] = d2 - d1;
            e[3 * per + at + tx] = d1 - d3;
        }
    }

    /** Column b of {@code Bᵀ (d B)} for a row of tiles: four rows of halves (r0 and the next three, tw apart) into four planes. */
    private static void tileColumns(float[] e, int r0, int tw, float[] v, int o0, int plane) {
        int r1 = r0 + tw;
        int r2 = r1 + tw;
        int r3 = r2 + tw;
        int o1 = o0 + 4 * plane;
        int o2 = o1 + 4 * plane;
        int o3 = o2 + 4 * plane;
        if (tw >= L) {
            for (int i = 0; i < tw; i += L) {
                int tx = Math.min(i, tw - L);
                FloatVector a1 = FloatVector.fromArray(S, e, r1 + tx);
                FloatVector a2 = FloatVector.fromArray(S, e, r2 + tx);
                FloatVector.fromArray(S, e, r0 + tx).sub(a2).intoArray(v, o0 + tx);
                a1.add(a2).intoArray(v, o1 + tx);
                a2.sub(a1).intoArray(v, o2 + tx);
                a1.sub(FloatVector.fromArray(S, e, r3 + tx)).intoArray(v, o3 + tx);
            }
            return;
        }
        for (int tx = 0; tx < tw; tx++) {
            float a1 = e[r1 + tx];
            float a2 = e[r2 + tx];
            v[o0 + tx] = e[r0 + tx] - a2;
            v[o1 + tx] = a1 + a2;
            v[o2 + tx] = a2 - a1;
            v[o3 + tx] = a1 - e[r3 + tx];
        }
    }

    /** {@link WinogradTransforms#output(float[], int, int, int, int, int, float[], int, int, int)}, its first half vectorized. */
    static void output(float[] m, int mo, int plane, int ty0, int ty1, int tw, float[] y, int yo, int oh, int ow) {
        float[] r = scratch(8 * tw);
        for (int ty = ty0; ty < ty1; ty++) {
            int t = mo + (ty - ty0) * tw;
            // Aᵀ m: two rows of four columns, for every tile of the row
            for (int b = 0; b < 4; b++) {
                columnHalves(m, t + b * plane, plane, r, b * tw, (4 + b) * tw, tw);
            }
            for (int i = 0; i < 2 && 2 * ty + i < oh; i++) {
                int o = yo + (2 * ty + i) * ow;
                int q = 4 * i * tw;
                int pairs = ow / 2;
                for (int tx = 0; tx < pairs; tx++) {
                    float a1 = r[q + tw + tx];
                    float a2 = r[q + 2 * tw + tx];
                    y[o + 2 * tx] = r[q + tx] + a1 + a2;
                    y[o + 2 * tx + 1] = a1 - a2 - r[q + 3 * tw + tx];
                }
                if (pairs < tw) {
                    y[o + 2 * pairs] = r[q + pairs] + r[q + tw + pairs] + r[q + 2 * tw + pairs];
                }
            }
        }
    }

    /** Column b of {@code Aᵀ m} for a row of tiles: m's four planes from m0 into the two rows q0 and q1 of r. */
    private static void columnHalves(float[] m, int m0, int plane, float[] r, int q0, int q1, int tw) {
        int m1 = m0 + 4 * plane;
        int m2 = m1 + 4 * plane;
        int m3 = m2 + 4 * plane;
        if (tw >= L) {
            for (int i = 0; i < tw; i += L) {
                int tx = Math.min(i, tw - L);
                FloatVector a1 = FloatVector.fromArray(S, m, m1 + tx);
                FloatVector a2 = FloatVector.fromArray(S, m, m2 + tx);
                FloatVector.fromArray(S, m, m0 + tx).add(a1).add(a2).intoArray(r, q0 + tx);
                a1.sub(a2).sub(FloatVector.fromArray(S, m, m3 + tx)).intoArray(r, q1 + tx);
            }
            return;
        }
        for (int tx = 0; tx < tw; tx++) {
            float a1 = m[m1 + tx];
            float a2 = m[m2 + tx];
            r[q0 + tx] = m[m0 + tx] + a1 + a2;
            r[q1 + tx] = a1 - a2 - m[m3 + tx];
        }
    }
}
