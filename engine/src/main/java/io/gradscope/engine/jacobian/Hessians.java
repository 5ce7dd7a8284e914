package io.gradscope.engine.jacobian;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;

/**
 * Hessians of a scalar as the Jacobian of its gradient: one reverse sweep records the gradient's
 * own graph, and the Hessian is that graph's {@link GraphJacobian} with respect to the same
 * tensor. A JVP of it is a Hessian-vector product forward-over-reverse (a VJP, reverse-over-reverse,
 * gives the same by symmetry); its sparsity pattern comes from the same dependency rules, run over
 * the gradient's graph, and made symmetric.
 *
 * <pre>{@code
 * GraphJacobian h = Hessians.of(loss, x);
 * Pattern p = Hessians.pattern(h, Sparsity.GLOBAL);
 * Coloring c = Colorings.color(p, Coloring.Kind.STAR, VertexOrder.SMALLEST_LAST);
 * SparseMatrix hess = Jacobians.compressed(h, p, c);     // c.count() HVPs
 * }</pre>
 */
public final class Hessians {
    private Hessians() {
    }

    /** The Hessian of the scalar {@code f} with respect to {@code wrt}, as an operator. */
    public static GraphJacobian of(Tensor f, Tensor wrt) {
        if (f.rank() != 0) {
            throw new GradscopeException("a Hessian needs a scalar, but the value has shape " + Shapes.str(f.shape()));
        }
        try (Recorder.Paused quiet = Recorder.pause()) {
            GraphJacobian gradient = GraphJacobian.of(f, wrt);
            Tensor g = gradient.vjpRecorded(Ops.constant(1, f));
            if (g.node() == null || !g.requiresGrad()) {
                // The gradient is a constant (f is linear in wrt, or does not depend on it): a zero Hessian.
                g = Tensor.zeros(wrt.dtype(), wrt.device(), wrt.shape());
            }
            return GraphJacobian.of(g, wrt);
        }
    }

    /** The Hessian's pattern: the gradient's, made symmetric (a valid pattern for a symmetric matrix). */
    public static Pattern pattern(GraphJacobian hessian, Sparsity kind) {
        return hessian.pattern(kind).symmetrized();
    }
}
