package io.gradscope.bench;

import io.gradscope.engine.jacobian.Coloring;
import io.gradscope.engine.jacobian.Colorings;
import io.gradscope.engine.jacobian.GraphJacobian;
import io.gradscope.engine.jacobian.Jacobians;
import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.jacobian.VertexOrder;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import java.util.function.DoubleSupplier;
import java.util.function.Function;

/**
 * The Jacobian workloads of {@code gradscope bench}: a function of a 10,000-vector, elementwise
 * (a diagonal Jacobian) and banded (three diagonals), evaluated compressed (forward pass, pattern
 * detection, coloring, one VJP per color, decompression) and densely (forward pass, 10,000 VJPs).
 */
final class JacobianWorkloads {
    static final int N = 10_000;

    private JacobianWorkloads() {
    }

    static List<Workloads.Workload> all() {
        return List.of(
                new Workloads.Workload("jacobian_elementwise_10k_compressed_ms", "ms", 3,
                        () -> run(JacobianWorkloads::elementwise, true)),
                new Workloads.Workload("jacobian_elementwise_10k_dense_ms", "ms", 1,
                        () -> run(JacobianWorkloads::elementwise, false)),
                new Workloads.Workload("jacobian_banded_10k_compressed_ms", "ms", 3, () -> run(JacobianWorkloads::banded, true)),
                new Workloads.Workload("jacobian_banded_10k_dense_ms", "ms", 1, () -> run(JacobianWorkloads::banded, false)));
    }

    /** {@code tanh(x) ⊙ x + sin(x)}: a diagonal Jacobian, one color. */
    static Tensor elementwise(Tensor x) {
        return Ops.add(Ops.mul(Ops.tanh(x), x), Ops.sin(x));
    }

    /** {@code sin(x[i]) · x[i+1] + tanh(x[i+2])}: (n − 2) x n with three diagonals, three colors. */
    static Tensor banded(Tensor x) {
        int n = (int) x.numel();
        return Ops.add(Ops.mul(Ops.sin(Ops.slice(x, 0, 0, n - 2)), Ops.slice(x, 0, 1, n - 1)), Ops.tanh(Ops.slice(x, 0, 2, n)));
    }

    /** The Jacobian of f at a fixed random x, from the forward pass on; returns milliseconds. */
    static DoubleSupplier run(Function<Tensor, Tensor> f, boolean compressed) {
        Tensor x0 = Workloads.random(DType.FLOAT64, 5, 1, N);
        return () -> {
            long t0 = System.nanoTime();
            SparseMatrix j = jacobian(f, x0, compressed);
            if (j.pattern().nnz() == 0) {
                throw new IllegalStateException("an empty Jacobian");
            }
            return (System.nanoTime() - t0) / 1e6;
        };
    }

    static SparseMatrix jacobian(Function<Tensor, Tensor> f, Tensor x0, boolean compressed) {
        Tensor x = Tensor.fromDoubles(x0.dtype(), x0.toDoubleArray(), x0.shape()).setRequiresGrad(true);
        GraphJacobian j = GraphJacobian.of(f.apply(x), x);
        if (!compressed) {
            return Jacobians.denseByRows(j);
        }
        Pattern p = j.pattern(Sparsity.GLOBAL);
        Coloring c = Colorings.color(p, Coloring.Kind.ROW, VertexOrder.NATURAL);
        return Jacobians.compressed(j, p, c);
    }
}
