package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every conv2d and conv_transpose2d row of optable.json (PyTorch's values and gradients) on every way
 * a convolution can be computed ({@code gradscope.conv}: im2col, Winograd's and the direct 3x3 kernel
 * wherever they take the window), float32 and float64: the op table itself runs the backend's own
 * choice only. Among the rows are windows that lie partly or wholly in the padding (issue 44:
 * convnext_tiny's 7x7 kernel, padding 3, on a 2x2 map stopped im2col with an index out of bounds),
 * and transposed convolutions whose 3x3 correlation is padded 2 − p below zero.
 */
class ConvWaysTest {
    private static final List<OpRow> ROWS = OpRow.load().stream()
            .filter(r -> r.op().equals("conv2d") || r.op().equals("conv_transpose2d")).toList();

    @AfterEach
    void clearSwitch() {
        System.clearProperty("gradscope.conv");
    }

    static Stream<Arguments> cases() {
        return Stream.of("im2col", "winograd", "direct").flatMap(way -> ROWS.stream().map(r -> Arguments.of(way, r)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void valueAndGradientsMatchPyTorchOnEveryWay(String way, OpRow row) {
        System.setProperty("gradscope.conv", way);
        for (DType dt : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            double rtol = dt == DType.FLOAT32 ? 1e-4 : 1e-9;
            double atol = dt == DType.FLOAT32 ? 1e-4 : 1e-12;
            Tensor[] in = row.inputs().stream().map(a -> a.tensor(dt).setRequiresGrad(true)).toArray(Tensor[]::new);
            Tensor y = Ops.apply(row.create(), in);
            assertArrayEquals(row.output().shape(), y.shape(), row + ": shape");
            assertClose(row.output().data(), y.toDoubleArray(), rtol, atol, way + " " + dt + " " + row + ": forward");
            Backward.run(Ops.sum(Ops.mul(y, row.upstream().tensor(dt))));
            for (int i = 0; i < in.length; i++) {
                assertTrue(in[i].grad() != null, row + ": no gradient for input " + i);
                assertClose(row.grads().get(i).data(), in[i].grad().toDoubleArray(), rtol, atol,
                        way + " " + dt + " " + row + ": VJP " + i);
            }
        }
    }
}
