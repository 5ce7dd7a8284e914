package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * where masks a NaN of the branch not taken in the gradients and tangents too, not only the value
 * (the op-table rows cover the value; their upstreams and tangents are finite). The usual idiom:
 * {@code where(x > 0, log(x), 0)}, whose gradient PyTorch gives as 1/x where x > 0 and 0 elsewhere.
 */
class WhereNaNTest {
    private static final Op WHERE = OpRegistry.create("where", Map.of());

    @Test
    void gradientThroughALogOfNegativeValuesNotTakenIsZero() {
        for (DType dt : new DType[] {DType.FLOAT64, DType.FLOAT32}) {
            Tensor x = Tensor.fromDoubles(dt, new double[] {-1, 2, -3, 4}, 4).setRequiresGrad(true);
            Tensor c = Tensor.ofLongs(new long[] {0, 1, 0, 1}, 4);
            Tensor y = Ops.apply(WHERE, c, Ops.log(x), Ops.constant(0, x));
            assertClose(new double[] {0, Math.log(2), 0, Math.log(4)}, y.toDoubleArray(), 1e-6, 1e-7, dt + ": value");
            Backward.run(Ops.sum(y));
            assertClose(new double[] {0, 0.5, 0, 0.25}, x.grad().toDoubleArray(), 1e-6, 1e-7, dt + ": gradient");
        }
    }

    @Test
    void tangentOfTheBranchNotTakenDoesNotLeak() {
        Tensor c = Tensor.ofLongs(new long[] {0, 1, 1}, 3);
        Tensor a = Tensor.of(new double[] {1, 2, 3}, 3);
        Tensor b = Tensor.of(new double[] {4, 5, 6}, 3);
        try (var off = GradMode.disable()) {
            OpContext ctx = new OpContext(c, a, b);
            ctx.setOutput(WHERE.forward(ctx, c, a, b));
            Tensor ta = Tensor.of(new double[] {Double.NaN, 1, Double.POSITIVE_INFINITY}, 3);
            Tensor tb = Tensor.of(new double[] {2, Double.NaN, Double.NaN}, 3);
            assertClose(new double[] {2, 1, Double.POSITIVE_INFINITY}, WHERE.jvp(ctx, null, ta, tb).toDoubleArray(), 0, 0, "JVP");
        }
    }
}
