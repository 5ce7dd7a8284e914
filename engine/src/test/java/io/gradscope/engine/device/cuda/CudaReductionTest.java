package io.gradscope.engine.device.cuda;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gradscope.engine.tensor.Backends;
import io.gradscope.engine.tensor.ReduceKind;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sum and max on CUDA equal the CPU's over shapes that take each path: a thread per output, one
 * block per output, several blocks per output and a second pass; contiguous, strided and
 * broadcast inputs; NaN propagating through max; empty reductions.
 */
class CudaReductionTest {

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(new int[] {70000}, new int[] {1}, false),         // several blocks, second pass
                Arguments.of(new int[] {3, 5000}, new int[] {3, 1}, false),     // a block per output
                Arguments.of(new int[] {5000, 3}, new int[] {1, 3}, false),     // strided, a block per output
                Arguments.of(new int[] {4, 6, 300}, new int[] {1, 6, 1}, false), // two reduced axes apart
                Arguments.of(new int[] {40000, 4}, new int[] {40000, 1}, false), // many outputs: a thread each
                Arguments.of(new int[] {64, 64}, new int[] {64, 1}, true),      // a transposed input
                Arguments.of(new int[] {9, 0}, new int[] {9, 1}, false),        // empty
                Arguments.of(new int[] {2, 3000}, new int[] {2, 1}, false));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void cudaEqualsCpu(int[] shape, int[] outShape, boolean transposed) {
        assumeTrue(Backends.cudaAvailable(), () -> "CUDA unavailable: " + Backends.cudaProblem());
        Random rnd = new Random(shape.length * 31L + shape[0]);
        long n = 1;
        for (int s : shape) {
            n *= s;
        }
        double[] v = new double[(int) n];
        for (int i = 0; i < v.length; i++) {
            v[i] = rnd.nextGaussian() + 3;
        }
        if (v.length > 10) {
            v[v.length / 2] = Double.NaN;
        }
        for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            for (ReduceKind kind : ReduceKind.values()) {
                double[][] got = new double[2][];
                for (Device device : Device.computing()) {
                    Tensor x = Tensor.fromDoubles(dt, device, v, shape);
                    if (transposed) {
                        x = x.viewTranspose(0, 1);
                    }
                    Tensor out = Tensor.zeros(dt, device, outShape);
                    Backends.of(device).reduce(kind, x, out);
                    got[device.ordinal()] = out.toDoubleArray();
                }
                double rtol = dt == DType.FLOAT32 ? 1e-5 : 1e-12;
                assertClose(got[0], got[1], rtol, rtol, kind + " " + dt + " " + java.util.Arrays.toString(shape));
            }
        }
    }
}
