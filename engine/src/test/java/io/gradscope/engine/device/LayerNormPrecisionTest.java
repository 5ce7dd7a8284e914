package io.gradscope.engine.device;

import io.gradscope.engine.tensor.Backends;
import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Float32 LayerNorm on rows whose mean is large against their spread (about 1000 ± 1, as the
 * op-table row {@code layer_norm [3,8]}) matches the float64 result of the same float32 inputs to
 * a few float ulps, on the CPU (vector and plain rows) and on CUDA: the statistics are in double.
 * The CPU's vector path once rounded the mean to float and was 2.3e-4 off.
 */
class LayerNormPrecisionTest {

    @ParameterizedTest
    @EnumSource(value = Device.class, names = {"CPU", "CUDA"})
    void float32RowsAroundALargeMeanMatchTheFloat64Result(Device device) {
        if (device == Device.CUDA) {
            assumeTrue(Backends.cudaAvailable(), () -> "CUDA unavailable: " + Backends.cudaProblem());
        }
        Random rnd = new Random(17);
        for (int d : new int[] {8, 37, 256}) {
            int rows = 5;
            double[] x = new double[rows * d];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (1000 + 2 * rnd.nextDouble() - 1);
            }
            double[] w = new double[d];
            double[] b = new double[d];
            for (int i = 0; i < d; i++) {
                w[i] = (float) (0.5 + rnd.nextDouble());
                b[i] = (float) (rnd.nextDouble() - 0.5);
            }
            double[][] ref = layerNorm(DType.FLOAT64, Device.CPU, x, w, b, rows, d);
            double[][] got = layerNorm(DType.FLOAT32, device, x, w, b, rows, d);
            String what = device + " float32 layer_norm [" + rows + ", " + d + "]";
            assertClose(ref[0], got[0], 1e-6, 1e-6, what + " output");
            assertClose(ref[1], got[1], 1e-6, 1e-6, what + " xhat");
            assertClose(ref[2], got[2], 1e-6, 0, what + " rstd");
        }
    }

    private static double[][] layerNorm(DType dt, Device device, double[] x, double[] w, double[] b, int rows, int d) {
        Tensor xt = Tensor.fromDoubles(dt, device, x, rows, d);
        Tensor wt = Tensor.fromDoubles(dt, device, w, d);
        Tensor bt = Tensor.fromDoubles(dt, device, b, d);
        Tensor out = Tensor.zeros(dt, device, rows, d);
        Tensor xhat = Tensor.zeros(dt, device, rows, d);
        Tensor rstd = Tensor.zeros(dt, device, rows, 1);
        Backends.of(device).layerNormRows(xt, wt, bt, 1e-5, out, xhat, rstd);
        return new double[][] {out.toDoubleArray(), xhat.toDoubleArray(), rstd.toDoubleArray()};
    }
}
