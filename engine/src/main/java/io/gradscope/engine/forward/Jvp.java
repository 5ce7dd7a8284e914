package io.gradscope.engine.forward;

import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.tensor.Tensor;
import java.util.function.Function;

/**
 * Jacobian-vector products in one forward pass, no backward pass.
 *
 * <pre>{@code
 * Dual d = Jvp.of(x -> Ops.tanh(Ops.matmul(x, w)), x, v);
 * Tensor y = d.primal();      // f(x)
 * Tensor jv = d.tangent();    // J·v
 * }</pre>
 */
public final class Jvp {
    private Jvp() {
    }

    /** f(x) and J·v for one input. */
    public static Dual of(Function<Tensor, Tensor> f, Tensor x, Tensor v) {
        return of(in -> f.apply(in[0]), new Tensor[] {x}, new Tensor[] {v});
    }

    /** f(x) and Σᵢ Jᵢ·vᵢ for several inputs (a null tangent: that input is held fixed). */
    public static Dual of(Function<Tensor[], Tensor> f, Tensor[] x, Tensor[] v) {
        try (Tangents.Level level = Tangents.open(); var off = GradMode.disable()) {
            for (int i = 0; i < x.length; i++) {
                if (v[i] != null) {
                    Tangents.set(x[i], v[i]);
                }
            }
            Tensor y = f.apply(x);
            Tensor t = Tangents.of(y);
            return new Dual(y, t != null ? t : Tensor.zeros(y.dtype(), y.device(), y.shape()));
        }
    }
}
