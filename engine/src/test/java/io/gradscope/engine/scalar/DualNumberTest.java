package io.gradscope.engine.scalar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Dual numbers give the derivative that central differences and the Value engine give. */
class DualNumberTest {
    private static final double EPS = 1e-6;

    @Test
    void slopeIsTheDerivative() {
        UnaryOperator<DualNumber> f = x -> x.mul(x).add(x.sin()).div(x.exp().add(DualNumber.constant(1))).tanh()
                .sub(x.log().pow(3)).add(x.cos().relu());
        for (double at : new double[] {0.3, 1.1, 2.5}) {
            DualNumber y = f.apply(DualNumber.variable(at));
            double numeric = (f.apply(DualNumber.constant(at + EPS)).value() - f.apply(DualNumber.constant(at - EPS)).value())
                    / (2 * EPS);
            assertEquals(numeric, y.slope(), 1e-7, "f'(" + at + ")");
        }
    }

    @Test
    void valueEngineAgreesWithDualNumbers() {
        // f(a, b) = tanh(a·b + a) − log(b)·relu(a) / b² along a: Value's ∂f/∂a equals the dual slope.
        double a = 0.7;
        double b = 1.9;
        Value va = new Value(a, "a");
        Value vb = new Value(b, "b");
        Value y = va.mul(vb).add(va).tanh().sub(vb.log().mul(va.relu()).div(vb.pow(2)));
        y.backward();
        DualNumber da = DualNumber.variable(a);
        DualNumber db = DualNumber.constant(b);
        DualNumber d = da.mul(db).add(da).tanh().sub(db.log().mul(da.relu()).div(db.pow(2)));
        assertEquals(d.value(), y.data(), 1e-15);
        assertEquals(d.slope(), va.grad(), 1e-12);
    }

    @Test
    void aLongChainDoesNotOverflowTheStack() {
        Value x = new Value(0.5, "x");
        Value y = x;
        for (int i = 0; i < 100_000; i++) {
            y = y.mul(1.0);
        }
        y.backward();
        assertEquals(1.0, x.grad(), 0);
    }
}
