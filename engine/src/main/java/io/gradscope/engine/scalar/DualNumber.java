package io.gradscope.engine.scalar;

import io.gradscope.engine.tensor.UnaryKind;

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

    // Each function's value and slope are the tensor kernels' own scalar functions (UnaryKind#apply).

    private DualNumber chain(UnaryKind f, UnaryKind df, double p) {
        return chain(f.apply(value, p), df.apply(value, p));
    }

    public DualNumber pow(double c) {
        return chain(UnaryKind.POW.apply(value, c), c * UnaryKind.POW.apply(value, c - 1));
    }

    public DualNumber exp() {
        return chain(UnaryKind.EXP, UnaryKind.EXP, 0);
    }

    public DualNumber log() {
        return chain(UnaryKind.LOG.apply(value, 0), 1 / value);
    }

    public DualNumber sin() {
        return chain(UnaryKind.SIN, UnaryKind.COS, 0);
    }

    public DualNumber cos() {
        return chain(UnaryKind.COS.apply(value, 0), -UnaryKind.SIN.apply(value, 0));
    }

    public DualNumber tanh() {
        double t = UnaryKind.TANH.apply(value, 0);
        return chain(t, 1 - t * t);
    }

    // ReLU's derivative at 0 is 0, as in the tensor engine and PyTorch.
    public DualNumber relu() {
        return chain(UnaryKind.RELU, UnaryKind.STEP, 0);
    }

    @Override
    public String toString() {
        return value + (slope < 0 ? " - " : " + ") + Math.abs(slope) + "ε";
    }
}
