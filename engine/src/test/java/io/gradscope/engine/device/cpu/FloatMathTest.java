package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The float32 arithmetic shared by the vector and the plain kernels: the same bits from both
 * (Note [Exact operations only]), exp within an ulp, cascade sums close to the exact sum.
 */
class FloatMathTest {
    private static float[] samples() {
        Random r = new Random(7);
        float[] x = new float[20000];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (r.nextDouble() * 210 - 110);
        }
        float[] special = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, 88.72f, 88.7228f, 88.73f,
            -87.3f, -87.34f, -103.9f, -104f, -105f, 1e-10f, -1e-10f, 0.5f * (float) Math.log(2), 1f, -1f, 20f};
        System.arraycopy(special, 0, x, 0, special.length);
        return x;
    }

    @Test
    void expIsWithinAnUlpOfTheCorrectlyRoundedValue() {
        double worst = 0;
        for (float v : samples()) {
            float e = FloatMath.exp(v);
            double ref = Math.exp(v);
            if (Double.isNaN(ref)) {
                assertTrue(Float.isNaN(e), "exp(" + v + ")");
                continue;
            }
            float refF = (float) ref;
            if (Float.isInfinite(refF) || refF == 0f) {
                assertTrue(e == refF || Math.abs(e - ref) <= Math.ulp(Float.MIN_NORMAL), "exp(" + v + ") = " + e + ", not " + refF);
                continue;
            }
            double ulps = Math.abs(e - ref) / Math.ulp(refF);
            worst = Math.max(worst, ulps);
        }
        assertTrue(worst <= 1.0, "worst error " + worst + " ulp");
    }

    @Test
    void vectorExpGivesThePlainBits() {
        assumeTrue(CpuMatmul.VECTOR, "no Vector API");
        float[] x = samples();
        float[] y = new float[x.length];
        VectorRows.expShift(x, 0, 0f, y, 0, x.length);
        for (int i = 0; i < x.length; i++) {
            assertEquals(Float.floatToRawIntBits(FloatMath.exp(x[i])), Float.floatToRawIntBits(y[i]), "exp(" + x[i] + ")");
        }
    }

    @Test
    void vectorSumsGiveThePlainBits() {
        assumeTrue(CpuMatmul.VECTOR, "no Vector API");
        Random r = new Random(3);
        float[] a = new float[5000];
        float[] b = new float[5000];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) r.nextGaussian();
            b[i] = (float) (r.nextGaussian() * 3 + 10);
        }
        for (int n : new int[] {0, 1, 7, 15, 16, 17, 255, 256, 257, 300, 512, 777, 1024, 2049, 4500}) {
            for (int off : new int[] {0, 3}) {
                assertEquals(Float.floatToRawIntBits(FloatMath.sum(a, off, n)), Float.floatToRawIntBits(VectorFloat.sum(a, off, n)), "sum " + n);
                assertEquals(Float.floatToRawIntBits(FloatMath.dot(a, off, b, 1, n)), Float.floatToRawIntBits(VectorFloat.dot(a, off, b, 1, n)),
                        "dot " + n);
                float[] plain = new float[2];
                float[] vector = new float[2];
                FloatMath.deviationSums(b, off, n, 10f, plain);
                VectorFloat.deviationSums(b, off, n, 10f, vector);
                assertEquals(Float.floatToRawIntBits(plain[0]), Float.floatToRawIntBits(vector[0]), "deviations " + n);
                assertEquals(Float.floatToRawIntBits(plain[1]), Float.floatToRawIntBits(vector[1]), "squared deviations " + n);
            }
        }
    }

    @Test
    void fusedRowKernelsGiveThePlainBitsAndTheUnfusedSums() {
        assumeTrue(CpuMatmul.VECTOR, "no Vector API");
        Random r = new Random(9);
        for (int n : new int[] {1, 15, 16, 33, 256, 300, 1024, 1100}) {
            float[] x = new float[n + 3];
            float[] g = new float[n + 3];
            float[] w = new float[n];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (r.nextGaussian() * 3);
                g[i] = (float) r.nextGaussian();
            }
            for (int i = 0; i < n; i++) {
                w[i] = (float) (1 + 0.1 * r.nextGaussian());
            }
            FloatMath.Scratch s1 = new FloatMath.Scratch();
            FloatMath.Scratch s2 = new FloatMath.Scratch();
            float[] y1 = new float[n];
            float[] y2 = new float[n];
            float e1 = FloatMath.expSum(x, 3, 1.5f, y1, 0, n, s1);
            float e2 = VectorRows.expSum(x, 3, 1.5f, y2, 0, n, s2);
            assertEquals(Float.floatToRawIntBits(e1), Float.floatToRawIntBits(e2), "expSum " + n);
            assertEquals(Float.floatToRawIntBits(FloatMath.sum(y1, 0, n)), Float.floatToRawIntBits(e1), "expSum is the sum " + n);
            float[][] h = {new float[n], new float[n]};
            float[][] gw = {new float[n], new float[n]};
            float[][] lw = {new float[2 * n], new float[2 * n]};
            float[][] lb = {new float[2 * n], new float[2 * n]};
            FloatMath.layerNormBackRow(g, 3, x, 1, w, 0.25f, 1e-3f, 0.7f, h[0], gw[0], lw[0], lb[0], n, n, s1);
            VectorRows.layerNormBackRow(g, 3, x, 1, w, 0.25f, 1e-3f, 0.7f, h[1], gw[1], lw[1], lb[1], n, n, s2);
            for (int k = 0; k < 2; k++) {
                assertEquals(Float.floatToRawIntBits(s1.out[k]), Float.floatToRawIntBits(s2.out[k]), "layer norm sums " + n);
            }
            assertEquals(Float.floatToRawIntBits(FloatMath.sum(gw[0], 0, n)), Float.floatToRawIntBits(s1.out[0]), "Σ gw " + n);
            assertEquals(Float.floatToRawIntBits(FloatMath.dot(gw[0], 0, h[0], 0, n)), Float.floatToRawIntBits(s1.out[1]), "Σ gw·h " + n);
            for (int i = 0; i < n; i++) {
                assertEquals(Float.floatToRawIntBits(h[0][i]), Float.floatToRawIntBits(h[1][i]));
                assertEquals(Float.floatToRawIntBits(lw[0][n + i]), Float.floatToRawIntBits(lw[1][n + i]));
                assertEquals(Float.floatToRawIntBits(lb[0][n + i]), Float.floatToRawIntBits(lb[1][n + i]));
            }
        }
    }

    @Test
    void cascadeSumOfAMillionIsCloseToTheExactSum() {
        Random r = new Random(11);
        int n = 1 << 20;
        float[] x = new float[n];
        double exact = 0;
        for (int i = 0; i < n; i++) {
            x[i] = (float) (r.nextDouble() + 0.5);
            exact += x[i];
        }
        float s = FloatKernels.sum(x, 0, n);
        // A sequential float sum is off by ~1e-4 relative here; the cascade by a few ulps.
        assertTrue(Math.abs(s - exact) / exact < 1e-6, s + " vs " + exact);
    }

    @Test
    void columnAndRunReductionsUseTheSameTree() {
        Random r = new Random(5);
        int rows = 700;
        int cols = 37;
        double[] d = new double[rows * cols];
        for (int i = 0; i < d.length; i++) {
            d[i] = r.nextGaussian() * 100;
        }
        Tensor x = Tensor.fromDoubles(DType.FLOAT32, d, rows, cols);
        Tensor byColumns = Tensor.zeros(DType.FLOAT32, 1, cols);
        FloatReduce.run(ReduceKind.SUM, x, byColumns);
        Tensor xt = x.viewTranspose(0, 1).contiguous();
        Tensor byRuns = Tensor.zeros(DType.FLOAT32, cols, 1);
        FloatReduce.run(ReduceKind.SUM, xt, byRuns);
        float[] a = byColumns.storage().floats();
        float[] b = byRuns.storage().floats();
        for (int j = 0; j < cols; j++) {
            assertEquals(Float.floatToRawIntBits(b[j]), Float.floatToRawIntBits(a[j]), "column " + j);
        }
    }
}
