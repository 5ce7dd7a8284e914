package io.gradscope.engine.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Float32 matmul against a float64 reference in plain loops, including transposed operands. */
class MatmulAccuracyTest {

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {1, 7, 33, 300, 1023})
    void float32AgreesWithFloat64Reference(int n) {
        Random r = new Random(n);
        int m = n + 3;
        int k = n;
        double[] a = new double[m * k];
        double[] b = new double[k * n];
        for (int i = 0; i < a.length; i++) {
            a[i] = r.nextGaussian();
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = r.nextGaussian();
        }
        // A is given as the transpose of a [k, m] tensor: a non-contiguous operand.
        double[] at = new double[k * m];
        for (int i = 0; i < m; i++) {
            for (int p = 0; p < k; p++) {
                at[p * m + i] = a[i * k + p];
            }
        }
        Tensor ta = Ops.transpose(Tensor.fromDoubles(DType.FLOAT32, at, k, m));
        Tensor tb = Tensor.fromDoubles(DType.FLOAT32, b, k, n);
        double[] c = Ops.matmul(ta, tb).toDoubleArray();
        assertArrayEquals(new int[] {m, n}, Ops.matmul(ta, tb).shape());
        // Reference from the float32-rounded inputs, in float64; the bound scales with Σ|a||b|.
        double[] bt = new double[n * k];
        for (int p = 0; p < k; p++) {
            for (int j = 0; j < n; j++) {
                bt[j * k + p] = (float) b[p * n + j];
            }
        }
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double ref = 0;
                double mag = 0;
                for (int p = 0; p < k; p++) {
                    double x = (float) a[i * k + p] * bt[j * k + p];
                    ref += x;
                    mag += Math.abs(x);
                }
                double err = Math.abs(c[i * n + j] - ref);
                assertTrue(err <= 1e-5 * mag + 1e-30, "C[" + i + "," + j + "] = " + c[i * n + j] + " vs " + ref);
            }
        }
    }
}
