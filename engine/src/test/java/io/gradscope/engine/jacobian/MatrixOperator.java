package io.gradscope.engine.jacobian;

import io.gradscope.engine.sparse.SparseMatrix;

/** A Jacobian given as a matrix, its products computed directly: a stand-in for a graph in coloring tests. */
final class MatrixOperator implements JacobianOperator {
    private final SparseMatrix a;
    private int vjps;
    private int jvps;

    MatrixOperator(SparseMatrix a) {
        this.a = a;
    }

    @Override
    public int rows() {
        return a.rows();
    }

    @Override
    public int cols() {
        return a.cols();
    }

    @Override
    public double[] vjp(double[] u) {
        vjps++;
        return a.transposeTimes(u);
    }

    @Override
    public double[] jvp(double[] v) {
        jvps++;
        return a.times(v);
    }

    @Override
    public int vjps() {
        return vjps;
    }

    @Override
    public int jvps() {
        return jvps;
    }
}
