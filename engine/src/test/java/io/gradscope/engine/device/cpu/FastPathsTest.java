package io.gradscope.engine.device.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The CPU kernels' shortcuts against independent computations: a batch of float32 products (one
 * system-BLAS call per matrix where it is in use) against float64 loops, a reduction over size-1
 * axes (a copy) against the input itself, and the vector max, min, eq and gt against Math.max,
 * Math.min, == and &gt; on NaN, signed zeros, ties and a length that is no multiple of the lanes.
 */
class FastPathsTest {
    private static final CpuBackend CPU = CpuBackend.INSTANCE;

    @Test
    void batchedFloatProductsEqualDoubleLoops() {
        Random r = new Random(11);
        int batch = 3;
        int m = 40;
        int k = 50;
        int n = 30;
        float[] a = new float[batch * m * k];
        float[] bt = new float[batch * n * k];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) r.nextGaussian();
        }
        for (int i = 0; i < bt.length; i++) {
            bt[i] = (float) r.nextGaussian();
        }
        Tensor ta = Tensor.of(a, batch, m, k);
        // B is the transpose of a [batch, n, k] array: a view with unit row stride.
        Tensor tb = Tensor.of(bt, batch, n, k).asStrided(new int[] {batch, k, n}, new int[] {n * k, 1, k}, 0);
        Tensor out = Tensor.zeros(DType.FLOAT32, batch, m, n);
        CPU.matmul(ta, tb, out);
        float[] c = out.storage().floats();
        for (int p = 0; p < batch; p++) {
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double ref = 0;
                    double mag = 0;
                    for (int q = 0; q < k; q++) {
                        double t = (double) a[(p * m + i) * k + q] * bt[(p * n + j) * k + q];
                        ref += t;
                        mag += Math.abs(t);
                    }
                    double got = c[(p * m + i) * n + j];
                    assertTrue(Math.abs(got - ref) <= 1e-5 * mag, "batch " + p + " [" + i + ", " + j + "]: " + got
                            + " against " + ref + " (" + CpuBackend.floatGemm() + ")");
                }
            }
        }
    }

    @Test
    void reducingSizeOneAxesGivesTheInputBack() {
        float[] v = {1.5f, Float.NaN, -0f, 3f, Float.NEGATIVE_INFINITY, -2.25f};
        for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor base = Tensor.of(v, 2, 3).to(dt);
            // [3, 1, 2]: the transpose of [2, 3] with a size-1 axis between, strided.
            Tensor x = base.asStrided(new int[] {3, 1, 2}, new int[] {1, 6, 3}, 0);
            for (ReduceKind kind : new ReduceKind[] {ReduceKind.SUM, ReduceKind.MAX}) {
                Tensor out = Tensor.zeros(dt, 3, 1, 2);
                CPU.reduce(kind, x, out);
                double[] got = out.toDoubleArray();
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 2; j++) {
                        double want = v[j * 3 + i];
                        double g = got[i * 2 + j];
                        assertTrue(Double.isNaN(want) ? Double.isNaN(g) : g == want, dt + " " + kind + " [" + i + ", " + j
                                + "]: " + g + " against " + want);
                    }
                }
            }
        }
    }

    @Test
    void vectorMaxMinEqGtAreJavasOwn() {
        Random r = new Random(4);
        float[] special = {Float.NaN, -0f, 0f, 1f, -1f, Float.POSITIVE_INFINITY};
        int n = 37;
        float[] a = new float[n];
        float[] b = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = special[r.nextInt(special.length)];
            b[i] = r.nextInt(4) == 0 ? a[i] : special[r.nextInt(special.length)];
        }
        Tensor ta = Tensor.of(a, n);
        Tensor tb = Tensor.of(b, n);
        for (BinaryKind kind : new BinaryKind[] {BinaryKind.MAX, BinaryKind.MIN, BinaryKind.EQ, BinaryKind.GT}) {
            Tensor out = Tensor.zeros(DType.FLOAT32, n);
            CPU.binary(kind, ta, tb, out);
            float[] got = out.storage().floats();
            for (int i = 0; i < n; i++) {
                float want = switch (kind) {
                    case MAX -> Math.max(a[i], b[i]);
                    case MIN -> Math.min(a[i], b[i]);
                    case EQ -> a[i] == b[i] ? 1f : 0f;
                    default -> a[i] > b[i] ? 1f : 0f;
                };
                float g = got[out.offset() + i];
                String where = kind + "(" + a[i] + ", " + b[i] + ")";
                if (Float.isNaN(want)) {
                    assertTrue(Float.isNaN(g), where + " gave " + g);
                } else {
                    assertEquals(Float.floatToIntBits(want), Float.floatToIntBits(g), where + " gave " + g + ", not " + want);
                }
            }
        }
    }
}
