package io.gradscope.engine.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Convolutions of empty tensors, as PyTorch runs them (a batch or channel count of 0, a plane of no
 * rows that the padding alone gives an output), on every path: each output is its bias alone, and
 * the gradients are the sums of ones that reach them (none for x and the weight, the output's size
 * for each bias). They used to stop with an internal "/ by zero" or name conv_transpose2d. And the
 * line bench prints for the way 3x3 convolutions take.
 */
class ConvEmptyTest {
    @AfterEach
    void clearSwitch() {
        System.clearProperty("gradscope.conv");
    }

    private static Tensor f32(double[] v, int... shape) {
        return Tensor.of(v, shape).to(DType.FLOAT32);
    }

    /** bench's line: the asked-for way, or the backend's own choice. */
    @ParameterizedTest
    @ValueSource(strings = {"auto", "direct", "winograd", "im2col", "Im2Col "})
    void theChoiceInWordsIsTheAskedForWay(String way) {
        System.setProperty("gradscope.conv", way);
        Tensor x = Tensor.zeros(DType.FLOAT32, 1, 1, 1, 1);
        String said = Ops.conv3x3Choice(x.backend());
        String m = way.trim().toLowerCase(java.util.Locale.ROOT);
        assertEquals(m.equals("auto") ? x.backend().conv3x3Choice() : m + " (gradscope.conv or GRADSCOPE_CONV asks for it)", said);
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "direct", "winograd", "im2col"})
    void emptyInputsGiveTheBiasAloneAndEmptyGradients(String way) {
        System.setProperty("gradscope.conv", way);
        double[] bias = {0.5, -1.25, 2, 3};
        // {n, c, h, w, padding}: a batch of none, a plane of no rows (the padding gives it 2 x 7 outputs)
        for (int[] s : new int[][] {{0, 3, 5, 5, 1}, {1, 3, 0, 5, 2}}) {
            Tensor x = Tensor.zeros(DType.FLOAT32, s[0], s[1], s[2], s[3]).setRequiresGrad(true);
            Tensor w = f32(new double[4 * 3 * 9], 4, 3, 3, 3).setRequiresGrad(true);
            Tensor b = f32(bias, 4).setRequiresGrad(true);
            Tensor y = Ops.conv2d(x, w, b, new int[] {1}, new int[] {s[4]}, new int[] {1}, 1);
            int oh = s[2] + 2 * s[4] - 2;
            int ow = s[3] + 2 * s[4] - 2;
            assertArrayEquals(new int[] {s[0], 4, oh, ow}, y.shape());
            Backward.run(Ops.sum(y));
            int per = s[0] * oh * ow;
            assertArrayEquals(x.shape(), x.grad().shape());
            assertEquals(0, x.grad().numel());
            assertArrayEquals(new double[4 * 3 * 9], w.grad().toDoubleArray());
            assertArrayEquals(new double[] {per, per, per, per}, b.grad().toDoubleArray());
        }
        Tensor none = f32(new double[0], 0, 3, 5, 5).setRequiresGrad(true);
        Op transpose = OpRegistry.create("conv_transpose2d", Map.of("stride", new int[] {1}, "padding", new int[] {1}));
        Tensor w = f32(new double[3 * 2 * 9], 3, 2, 3, 3).setRequiresGrad(true);
        Tensor y = Ops.apply(transpose, none, w);
        assertArrayEquals(new int[] {0, 2, 5, 5}, y.shape());
        Backward.run(Ops.sum(y));
        assertArrayEquals(new double[3 * 2 * 9], w.grad().toDoubleArray());
    }
}
