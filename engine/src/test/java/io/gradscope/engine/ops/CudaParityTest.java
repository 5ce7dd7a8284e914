package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.Backends;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every op-table row on the CUDA backend against the CPU backend: forward and VJP equal to float32
 * rtol 1e-4 and float64 rtol 1e-10. Skipped, with the reason, where there is no GPU.
 */
class CudaParityTest {
    private static boolean available;

    @BeforeAll
    static void probe() {
        available = Backends.cudaAvailable();
        if (!available) {
            System.err.println("CudaParityTest skipped: CUDA unavailable: " + Backends.cudaProblem());
        }
    }

    static Stream<OpRow> rows() {
        return OpRow.load().stream();
    }

    private record Result(double[] out, double[][] grads) {
    }

    private static Result run(OpRow row, DType dt, Device device) {
        Tensor[] in = row.inputs().stream().map(a -> a.tensor(dt).toDevice(device)).toArray(Tensor[]::new);
        for (Tensor t : in) {
            if (t.dtype().isFloating()) {
                t.setRequiresGrad(true);
            }
        }
        Tensor y = Ops.apply(row.create(), in);
        double[][] grads = new double[in.length][];
        if (y.requiresGrad()) {
            Backward.run(Ops.sum(Ops.mul(y, row.upstream().tensor(dt).toDevice(device))));
            for (int i = 0; i < in.length; i++) {
                grads[i] = in[i].grad() == null ? null : in[i].grad().toDoubleArray();
            }
        }
        return new Result(y.toDoubleArray(), grads);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void cudaEqualsCpu(OpRow row) {
        assumeTrue(available, () -> "CUDA unavailable: " + Backends.cudaProblem());
        for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            double rtol = dt == DType.FLOAT32 ? 1e-4 : 1e-10;
            double atol = dt == DType.FLOAT32 ? 1e-5 : 1e-12;
            Result cpu = run(row, dt, Device.CPU);
            Result gpu = run(row, dt, Device.CUDA);
            assertClose(cpu.out(), gpu.out(), rtol, atol, row + " " + dt + " forward");
            for (int i = 0; i < cpu.grads().length; i++) {
                if (cpu.grads()[i] != null) {
                    assertClose(cpu.grads()[i], gpu.grads()[i], rtol, atol, row + " " + dt + " VJP " + i);
                }
            }
        }
    }
}
