package io.gradscope.engine.jacobian;

/**
 * A Jacobian {@code J} (rows x cols) known only through products with vectors: {@code uᵀJ} (a
 * vector-Jacobian product, reverse mode) and {@code J v} (a Jacobian-vector product, forward
 * mode). Dense and compressed evaluation ({@link Jacobians}) count the products they use.
 *
 * <pre>{@code
 * JacobianOperator j = GraphJacobian.of(y, x);
 * double[] row0 = j.vjp(e0);      // ∂y₀/∂x
 * double[] col0 = j.jvp(e0x);     // ∂y/∂x₀
 * }</pre>
 */
public interface JacobianOperator {
    /** The number of outputs (elements of the differentiated value). */
    int rows();

    /** The number of inputs (elements of the value differentiated with respect to). */
    int cols();

    /** {@code uᵀJ} for {@code u} of length {@link #rows()}; returns length {@link #cols()}. */
    double[] vjp(double[] u);

    /** {@code J v} for {@code v} of length {@link #cols()}; returns length {@link #rows()}. */
    double[] jvp(double[] v);

    /** How many VJPs have been taken so far. */
    int vjps();

    /** How many JVPs have been taken so far. */
    int jvps();
}
