package io.gradscope.engine.forward;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.check.GradCheck;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Tensor;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Dense Hessians from HVPs: symmetric, equal by both methods, and equal to central differences of the gradient. */
class HvpTest {
    private static final Tensor W = Tensor.of(new double[] {0.3, -0.7, 1.1, 0.2, -0.4, 0.9}, 3, 2);

    /** A small smooth function of a [2, 3] input with cross terms: sum(softmax(tanh(x) @ W)²) + mean(x)³. */
    private static final Function<Tensor, Tensor> F = x -> {
        Tensor p = Ops.softmax(Ops.matmul(Ops.tanh(x), W), -1);
        Tensor m = Ops.mean(x);
        return Ops.add(Ops.sum(Ops.mul(p, p)), Ops.mul(m, Ops.mul(m, m)));
    };

    private static final Tensor X = Tensor.of(new double[] {0.5, -1.2, 0.8, 0.1, 0.9, -0.3}, 2, 3);

    @Test
    void hessianIsSymmetricAndTheMethodsAgree() {
        double[][] a = Hvp.hessian(F, X, Hvp.Method.FORWARD_OVER_REVERSE);
        double[][] b = Hvp.hessian(F, X, Hvp.Method.REVERSE_OVER_REVERSE);
        assertEquals(6, a.length);
        for (int i = 0; i < 6; i++) {
            assertClose(b[i], a[i], 1e-10, 1e-12, "row " + i + " by both methods");
            for (int j = 0; j < 6; j++) {
                assertClose(new double[] {a[j][i]}, new double[] {a[i][j]}, 1e-10, 1e-12, "H[" + i + "][" + j + "] symmetric");
            }
        }
    }

    @Test
    void hessianRowsAreCentralDifferencesOfTheGradient() {
        double[][] h = Hvp.hessian(F, X, Hvp.Method.FORWARD_OVER_REVERSE);
        for (int i = 0; i < 6; i++) {
            final int row = i;
            // ∂/∂x of the i-th gradient element, numerically: the gradient of x ↦ ⟨∇F(x), eᵢ⟩ is row i of H.
            double[] numeric = GradCheck.numericGradient(in -> {
                Tensor x = Tensor.of(in[0].toDoubleArray(), 2, 3).setRequiresGrad(true);
                try (var on = io.gradscope.engine.ops.GradMode.enable()) {
                    io.gradscope.engine.autograd.Backward.run(F.apply(x));
                }
                return Tensor.of(new double[] {x.grad().toDoubleArray()[row]});
            }, new Tensor[] {X}, 0);
            assertClose(numeric, h[i], 1e-5, 1e-7, "row " + i + " of the Hessian");
        }
    }

    @Test
    void jvpOfAFunctionIsItsDirectionalDerivative() {
        Tensor v = Tensor.of(new double[] {1, -2, 0.5, 0.3, 0.7, -1}, 2, 3);
        Dual d = Jvp.of(F, X, v);
        double eps = 1e-6;
        double[] x = X.toDoubleArray();
        double[] xp = x.clone();
        double[] xm = x.clone();
        for (int i = 0; i < x.length; i++) {
            xp[i] += eps * v.toDoubleArray()[i];
            xm[i] -= eps * v.toDoubleArray()[i];
        }
        double numeric = (F.apply(Tensor.of(xp, 2, 3)).item() - F.apply(Tensor.of(xm, 2, 3)).item()) / (2 * eps);
        assertClose(new double[] {numeric}, d.tangent().toDoubleArray(), 1e-6, 1e-9, "J·v");
        assertClose(F.apply(X).toDoubleArray(), d.primal().toDoubleArray(), 0, 0, "f(x)");
    }
}
