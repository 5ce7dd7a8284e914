package io.gradscope.engine.device.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The inner loops of {@link WinogradTransforms}' input transform, of the first half of its output
 * transform and of the output transform's adjoint with the Vector API, along a row of at least {@link #LANES} tiles: the same adds in the
 * same order as the plain loops, so the same bits (FastWindowsTest checks both against each other
 * and against float64 sums). Loaded only when the module is present ({@link CpuMatmul#VECTOR});
 * {@code -Dgradscope.windows=plain} keeps the plain loops ({@link Im2colKernels#fast}, read at each
 * call, to compare in one JVM: scripts/bench/step_ab.sh).
 *
 * <p>Note [Vector transforms]: in a steady resnet18 step (perf, 2 cores) the plain input transform
 * alone was 8% of the samples, the output's 3%. Timed alone on 64 channels at 56x56, the input
 * transform takes 0.26 ms with these loops against 0.76, the output's 0.17 against 0.32; at 28x28
 * the rows of 14 tiles are shorter than a vector of 16 and keep the plain loops. Vectors of the
 * preferred width, as the engine's other kernels: with 8-lane vectors (256 bits, so that those
 * rows would take one too) the compiled step boxed every vector, 173 MB allocated a step against 3
 * MB and resnet18 1.2-1.5x slower than on the plain loops, though a transform timed alone ran
 * twice as fast (JFR: the allocations were in Float256Vector's generic lanewise, not inlined into
 * these loops; the failure of Note [Inlined write-back] in VectorGemm). Each loop is a small method
 * of its own. Where a row of tiles is no multiple of the lanes, its last vector overlaps the one
 * before (writing the same values again).
 */
final class VectorTransforms {
    private VectorTransforms() {
    }

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** The fewest tiles in a row these loops take. */
    static final int LANES = L;

    /** One input row's half transform {@code d B} for every tile of the row, from its even and odd columns. */
    static void rowHalves(float[] e, int ev, int od, int at, int per, int tw) {
        // tw ≥ L; the last vector overlaps the one before where tw is no multiple of L: the same values written again
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
    }

    /** Column b of {@code Bᵀ (d B)} for a row of tiles: four rows of halves (r0 and the next three, tw apart) into four planes. */
    static void tileColumns(float[] e, int r0, int tw, float[] v, int o0, int plane) {
        int r1 = r0 + tw;
        int r2 = r1 + tw;
        int r3 = r2 + tw;
        int o1 = o0 + 4 * plane;
        int o2 = o1 + 4 * plane;
        int o3 = o2 + 4 * plane;
        for (int i = 0; i < tw; i += L) {
            int tx = Math.min(i, tw - L);
            FloatVector a1 = FloatVector.fromArray(S, e, r1 + tx);
            FloatVector a2 = FloatVector.fromArray(S, e, r2 + tx);
            FloatVector.fromArray(S, e, r0 + tx).sub(a2).intoArray(v, o0 + tx);
            a1.add(a2).intoArray(v, o1 + tx);
            a2.sub(a1).intoArray(v, o2 + tx);
            a1.sub(FloatVector.fromArray(S, e, r3 + tx)).intoArray(v, o3 + tx);
        }
    }

    /** Column b of {@code Aᵀ m} for a row of tiles: m's four planes from m0 into the two rows q0 and q1 of r. */
    static void columnHalves(float[] m, int m0, int plane, float[] r, int q0, int q1, int tw) {
        int m1 = m0 + 4 * plane;
        int m2 = m1 + 4 * plane;
        int m3 = m2 + 4 * plane;
        for (int i = 0; i < tw; i += L) {
            int tx = Math.min(i, tw - L);
            FloatVector a1 = FloatVector.fromArray(S, m, m1 + tx);
            FloatVector a2 = FloatVector.fromArray(S, m, m2 + tx);
            FloatVector.fromArray(S, m, m0 + tx).add(a1).add(a2).intoArray(r, q0 + tx);
            a1.sub(a2).sub(FloatVector.fromArray(S, m, m3 + tx)).intoArray(r, q1 + tx);
        }
    }

    /**
     * {@link WinogradTransforms#outputAdjoint}'s {@code A dy Aᵀ} for a row of tiles: e holds the tiles'
     * y00, y01, y10 and y11 as four rows of tw; the 16 values of tile tx go to {@code d[t + ξ·plane + tx]}.
     */
    static void adjointRow(float[] e, int tw, float[] d, int t, int plane) {
        for (int i = 0; i < tw; i += L) {
            int tx = Math.min(i, tw - L);
            FloatVector y00 = FloatVector.fromArray(S, e, tx);
            FloatVector y01 = FloatVector.fromArray(S, e, tw + tx);
            FloatVector y10 = FloatVector.fromArray(S, e, 2 * tw + tx);
            FloatVector y11 = FloatVector.fromArray(S, e, 3 * tw + tx);
            // A dy's four rows (p, q), each times Aᵀ: p, p + q, p − q, −q a plane apart (written out: vectors
            // handed to a helper the JIT might not inline would be boxed)
            int o = t + tx;
            y00.intoArray(d, o);
            y00.add(y01).intoArray(d, o + plane);
            y00.sub(y01).intoArray(d, o + 2 * plane);
            y01.neg().intoArray(d, o + 3 * plane);
            FloatVector p1 = y00.add(y10);
            FloatVector q1 = y01.add(y11);
            p1.intoArray(d, o + 4 * plane);
            p1.add(q1).intoArray(d, o + 5 * plane);
            p1.sub(q1).intoArray(d, o + 6 * plane);
            q1.neg().intoArray(d, o + 7 * plane);
            FloatVector p2 = y00.sub(y10);
            FloatVector q2 = y01.sub(y11);
            p2.intoArray(d, o + 8 * plane);
            p2.add(q2).intoArray(d, o + 9 * plane);
            p2.sub(q2).intoArray(d, o + 10 * plane);
            q2.neg().intoArray(d, o + 11 * plane);
            FloatVector p3 = y10.neg();
            FloatVector q3 = y11.neg();
            p3.intoArray(d, o + 12 * plane);
            p3.add(q3).intoArray(d, o + 13 * plane);
            p3.sub(q3).intoArray(d, o + 14 * plane);
            q3.neg().intoArray(d, o + 15 * plane);
        }
    }
}
