package io.gradscope.engine.scalar;

/**
 * A dual number a + bε with ε² = 0: carrying b through a computation gives the derivative along
 * with the value, which is forward mode on one scalar.
 *
 * <pre>{@code
 * DualNumber x = DualNumber.variable(2.0);          // 2 + 1ε
 * DualNumber y = x.mul(x).add(x.sin());             // x² + sin x
 * y.value();   // 4 + sin 2
 * y.slope();   // 2·2 + cos 2
 * }</pre>
 */
public record DualNumber(double value, double slope) {

    /** The input being differentiated with respect to: slope 1. */
    public static DualNumber variable(double v) {
        return new DualNumber(v, 1);
    }

    /** A constant: slope 0. */
    public static DualNumber constant(double v) {
        return new DualNumber(v, 0);
    }

    public DualNumber add(DualNumber o) {
        return new DualNumber(value + o.value, slope + o.slope);
    }

    public DualNumber sub(DualNumber o) {
        return new DualNumber(value - o.value, slope - o.slope);
    }

    /** (a + bε)(c + dε) = ac + (ad + bc)ε. */
    public DualNumber mul(DualNumber o) {
        return new DualNumber(value * o.value, value * o.slope + slope * o.value);
    }

    public DualNumber div(DualNumber o) {
        return new DualNumber(value / o.value, (slope * o.value - value * o.slope) / (o.value * o.value));
    }

    public DualNumber neg() {
        return new DualNumber(-value, -slope);
    }

    /** A function f with derivative df applied: f(a) + f'(a)·bε. */
    private DualNumber chain(double f, double df) {
        return new DualNumber(f, df * slope);
    }

    public DualNumber pow(double c) {
        return chain(Math.pow(value, c), c * Math.pow(value, c - 1));
    }

    public DualNumber exp() {
        double e = Math.exp(value);
        return chain(e, e);
    }

    public DualNumber log() {
        return chain(Math.log(value), 1 / value);
    }

    public DualNumber sin() {
        return chain(Math.sin(value), Math.cos(value));
    }

    public DualNumber cos() {
        return chain(Math.cos(value), -Math.sin(value));
    }

    public DualNumber tanh() {
        double t = Math.tanh(value);
        return chain(t, 1 - t * t);
    }

    // ReLU's derivative at 0 is 0, as in the tensor engine and PyTorch.
    public DualNumber relu() {
        return chain(Math.max(value, 0), value > 0 ? 1 : 0);
    }

    @Override
    public String toString() {
        return value + (slope < 0 ? " - " : " + ") + Math.abs(slope) + "ε";
    }
}
