package io.gradscope.engine.jacobian;

import io.gradscope.engine.sparse.IndexSets;
import java.util.function.BooleanSupplier;

/**
 * A Jacobian whose products are watched: before each, {@code cancelled} is asked (yes: an {@link
 * IndexSets.Cancelled} is thrown, so nothing half-evaluated is returned), and after each, {@code
 * progress} is told how many were taken of {@code total} (the colors of a compressed evaluation,
 * the rows or columns of a dense one). The app's Cancel and the command line's Ctrl+C stop a
 * Jacobian or a Hessian this way between two products.
 *
 * <pre>{@code
 * JacobianOperator w = new Watched(GraphJacobian.of(y, x), stop::get, (done, of) -> bar.set(done, of), c.count());
 * SparseMatrix m = Jacobians.compressed(w, p, c);
 * }</pre>
 */
public record Watched(JacobianOperator j, BooleanSupplier cancelled, Progress progress, int total) implements JacobianOperator {
    /** Told after each product: {@code done} of {@code total}. */
    @FunctionalInterface
    public interface Progress {
        void products(int done, int total);

        /** Tells nothing. */
        Progress NONE = (done, total) -> { };
    }

    /** Only asks {@code cancelled}. */
    public static JacobianOperator of(JacobianOperator j, BooleanSupplier cancelled) {
        return cancelled == null ? j : new Watched(j, cancelled, Progress.NONE, 0);
    }

    private void check() {
        if (cancelled != null && cancelled.getAsBoolean()) {
            throw new IndexSets.Cancelled();
        }
    }

    @Override
    public int rows() {
        return j.rows();
    }

    @Override
    public int cols() {
        return j.cols();
    }

    @Override
    public double[] vjp(double[] u) {
        check();
        double[] r = j.vjp(u);
        progress.products(j.vjps() + j.jvps(), total);
        return r;
    }

    @Override
    public double[] jvp(double[] v) {
        check();
        double[] r = j.jvp(v);
        progress.products(j.vjps() + j.jvps(), total);
        return r;
    }

    @Override
    public int vjps() {
        return j.vjps();
    }

    @Override
    public int jvps() {
        return j.jvps();
    }
}
