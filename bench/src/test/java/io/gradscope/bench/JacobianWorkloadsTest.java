package io.gradscope.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import org.junit.jupiter.api.Test;

/** The benchmark's Jacobians, on a short vector: compressed equals dense, with the structure expected. */
class JacobianWorkloadsTest {
    @Test
    void compressedEqualsDenseForBothFunctions() {
        Tensor x = Workloads.random(DType.FLOAT64, 5, 1, 40);
        SparseMatrix e = JacobianWorkloads.jacobian(JacobianWorkloads::elementwise, x, true);
        assertArrayEquals(JacobianWorkloads.jacobian(JacobianWorkloads::elementwise, x, false).toDense(), e.toDense(), 0.0);
        assertEquals(40, e.pattern().nnz(), "a diagonal");
        SparseMatrix b = JacobianWorkloads.jacobian(JacobianWorkloads::banded, x, true);
        assertArrayEquals(JacobianWorkloads.jacobian(JacobianWorkloads::banded, x, false).toDense(), b.toDense(), 1e-15);
        assertEquals(3 * 38, b.pattern().nnz(), "three diagonals");
        double[] x0 = x.toDoubleArray();
        for (int i = 0; i < 38; i++) {
            assertEquals(Math.cos(x0[i]) * x0[i + 1], b.get(i, i), 1e-15);
            assertEquals(Math.sin(x0[i]), b.get(i, i + 1), 1e-15);
            assertEquals(1 - Math.pow(Math.tanh(x0[i + 2]), 2), b.get(i, i + 2), 1e-15);
        }
    }
}
