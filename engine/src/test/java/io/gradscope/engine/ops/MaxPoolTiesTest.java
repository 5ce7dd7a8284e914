package io.gradscope.engine.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.Tensor;
import org.junit.jupiter.api.Test;

/**
 * Tied maxima (common after a ReLU) send the gradient to the first maximum of the window, as PyTorch's
 * max_pool does; the op-table rows avoid ties, where central differences have no single answer. The
 * expected gradients are PyTorch 1.13's.
 */
class MaxPoolTiesTest {
    @Test
    void theFirstMaximumOfA2dWindowGetsTheGradient() {
        Tensor x = Tensor.of(new double[] {0, 0, 1, 1, 0, 0, 1, 0.5, -1, 2, 3, 3, 2, 0, 3, -5}, 1, 1, 4, 4).setRequiresGrad(true);
        Backward.run(Ops.sum(Ops.maxPool2d(x, new int[] {2}, null, new int[] {0})));
        assertArrayEquals(new double[] {1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0}, x.grad().toDoubleArray());
    }

    @Test
    void overlapping1dWindowsWithPaddingCountTheirFirstMaximum() {
        Tensor x = Tensor.of(new double[] {0, 0, 0, -1, -1}, 1, 1, 5).setRequiresGrad(true);
        Op pool = OpRegistry.create("max_pool1d", java.util.Map.of("kernel_size", 3, "stride", 1, "padding", 1));
        Tensor y = Ops.apply(pool, x);
        assertArrayEquals(new double[] {0, 0, 0, 0, -1}, y.toDoubleArray());
        Backward.run(Ops.sum(y));
        assertArrayEquals(new double[] {2, 1, 1, 1, 0}, x.grad().toDoubleArray());
    }

    @Test
    void whereSelectsInfinitiesWithoutNaN() {
        Tensor c = Tensor.ofLongs(new long[] {1, 0, 1, 0}, 2, 2);
        Tensor a = Tensor.of(new double[] {Double.NEGATIVE_INFINITY}, new int[0]);
        Tensor b = Tensor.of(new double[] {1, 2, Double.POSITIVE_INFINITY, 4}, 2, 2).setRequiresGrad(true);
        Tensor y = Ops.where(c, a, b);
        assertArrayEquals(new double[] {Double.NEGATIVE_INFINITY, 2, Double.NEGATIVE_INFINITY, 4}, y.toDoubleArray());
        Backward.run(Ops.sum(Ops.mul(Ops.softmax(y, -1), Tensor.of(new double[] {1, 2, 3, 4}, 2, 2))));
        assertArrayEquals(new double[] {0, 0, 0, 0}, b.grad().toDoubleArray(), 1e-15);
    }
}
