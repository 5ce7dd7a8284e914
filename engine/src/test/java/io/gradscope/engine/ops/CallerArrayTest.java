package io.gradscope.engine.ops;

import io.gradscope.engine.autograd.Node;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import org.junit.jupiter.api.Test;

/**
 * An op's context keeps the arrays Ops makes for a call, but never a caller's: changing the array
 * handed to {@link Ops#apply} or {@link Ops#concat} afterwards changes neither the graph nor the
 * gradients.
 */
class CallerArrayTest {
    private static Tensor leaf(double... v) {
        return Tensor.fromDoubles(DType.FLOAT64, v, v.length).setRequiresGrad(true);
    }

    @Test
    void concatKeepsItsInputsWhenTheCallersArrayChanges() {
        Tensor a = leaf(1, 2);
        Tensor b = leaf(3);
        Tensor other = leaf(7, 8);
        Tensor[] xs = {a, b};
        Tensor y = Ops.concat(0, xs);
        xs[0] = other;
        assertSame(a, Node.of(y).inputs().get(0));
        Backward.run(Ops.sum(Ops.mul(y, y)));
        // d/dv of sum(v²) is 2v, on the tensors concatenated, not on the one put in the array after.
        assertArrayEquals(new double[] {2, 4}, a.grad().toDoubleArray(), 1e-12);
        assertArrayEquals(new double[] {6}, b.grad().toDoubleArray(), 1e-12);
        assertNull(other.grad());
    }

    @Test
    void applyKeepsItsInputsWhenTheCallersArrayChanges() {
        Tensor a = leaf(1, 2);
        Tensor b = leaf(3, 4);
        Tensor[] in = {a, b};
        Tensor y = Ops.apply(BinaryOp.MUL, in);
        in[1] = a;
        assertSame(b, Node.of(y).inputs().get(1));
        Backward.run(Ops.sum(y));
        assertArrayEquals(new double[] {3, 4}, a.grad().toDoubleArray(), 1e-12);
        assertArrayEquals(new double[] {1, 2}, b.grad().toDoubleArray(), 1e-12);
    }
}
