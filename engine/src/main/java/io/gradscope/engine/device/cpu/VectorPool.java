package io.gradscope.engine.device.cpu;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Max pooling's update of one output row by one kernel offset, with the Vector API over output
 * positions: the candidate replaces the row's maximum and index where {@code index < 0 || v > max ||
 * isnan(v)}, selected by masks, without branches (the plain loop's comparisons branch unpredictably).
 * Loaded only when the module is present ({@link CpuMatmul#VECTOR}); the same values as
 * {@link PoolKernels}'s plain loop.
 */
final class VectorPool {
    private VectorPool() {
    }

    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;

    /**
     * For q in {@code [0, n)}: candidate {@code v[vo + q]} against {@code m[o + q]}, {@code idx[o + q]};
     * where it wins, the maximum becomes v and the index {@code k}.
     */
    static void update(float[] v, int vo, float[] m, float[] idx, int o, int n, float k) {
        int q = 0;
        for (int end = F.loopBound(n); q < end; q += F.length()) {
            FloatVector c = FloatVector.fromArray(F, v, vo + q);
            FloatVector b = FloatVector.fromArray(F, m, o + q);
            FloatVector a = FloatVector.fromArray(F, idx, o + q);
            VectorMask<Float> win = c.compare(VectorOperators.GT, b).or(c.test(VectorOperators.IS_NAN))
                    .or(a.compare(VectorOperators.LT, 0f));
            b.blend(c, win).intoArray(m, o + q);
            a.blend(k, win).intoArray(idx, o + q);
        }
        PoolKernels.update(v, vo, m, idx, o, q, n, k);
    }

    /** {@link #update(float[], int, float[], float[], int, int, float)} in float64. */
    // GENERATED double twin (Twins, engine tests): edit the float method above, not this one
    static void update(double[] v, int vo, double[] m, double[] idx, int o, int n, double k) {
        int q = 0;
        for (int end = D.loopBound(n); q < end; q += D.length()) {
            DoubleVector c = DoubleVector.fromArray(D, v, vo + q);
            DoubleVector b = DoubleVector.fromArray(D, m, o + q);
            DoubleVector a = DoubleVector.fromArray(D, idx, o + q);
            VectorMask<Double> win = c.compare(VectorOperators.GT, b).or(c.test(VectorOperators.IS_NAN))
                    .or(a.compare(VectorOperators.LT, 0.0));
            b.blend(c, win).intoArray(m, o + q);
            a.blend(k, win).intoArray(idx, o + q);
        }
        PoolKernels.update(v, vo, m, idx, o, q, n, k);
    }
}
