package io.gradscope.engine.autograd;

import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.tensor.BinaryKind;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.Arrays;
import java.util.Collection;

/**
 * The update of plain gradient descent, {@code p ← p − lr · ∇p}, written into each parameter's own
 * storage, as PyTorch's {@code p.sub_(p.grad, alpha=lr)}: no new parameter tensors, no graph, one
 * pass over each parameter where the backend has a fused kernel ({@code Backend.axpy}). For a
 * training loop written with the Java API; a trace that recorded a parameter's values shows the new
 * ones afterwards.
 *
 * <pre>{@code
 * Backward.run(loss);
 * Sgd.step(params, 0.01);   // each p -= 0.01 * p.grad()
 * }</pre>
 */
public final class Sgd {
    private Sgd() {
    }

    /** Updates every parameter that has a gradient; one without a gradient (unused by the loss) is left as it is. */
    public static void step(Collection<Tensor> params, double lr) {
        if (!Double.isFinite(lr)) {
            throw new GradscopeException("sgd: the learning rate must be a finite number, not " + lr);
        }
        try (var off = GradMode.disable()) {
            for (Tensor p : params) {
                Tensor g = p.grad();
                if (g == null) {
                    continue;
                }
                if (!Arrays.equals(p.shape(), g.shape()) || p.dtype() != g.dtype() || p.device() != g.device()) {
                    throw new GradscopeException("sgd: a parameter of shape " + Shapes.str(p.shape()) + " (" + p.dtype()
                            + ") has a gradient of shape " + Shapes.str(g.shape()) + " (" + g.dtype() + ")");
                }
                if (!p.backend().axpy(-lr, g, p)) {
                    Tensor step = Ops.mul(g, -lr);
                    p.backend().binary(BinaryKind.ADD, p, step, p);
                    step.storage().release();
                }
            }
        }
    }
}
