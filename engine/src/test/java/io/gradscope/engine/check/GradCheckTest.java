package io.gradscope.engine.check;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.ops.Unrecorded;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.UnaryKind;
import org.junit.jupiter.api.Test;

class GradCheckTest {

    /** sin with a wrong VJP (sin instead of cos): the check must catch it. */
    static final class WrongSin extends Op {
        @Override
        public String name() {
            return "wrong_sin";
        }

        @Override
        public String rule() {
            return "dx = g ⊙ sin(x)  (wrong on purpose)";
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            return shapes[0];
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            return Unrecorded.unary(UnaryKind.SIN, in[0]);
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.mul(g, Ops.sin(ctx.input(0)))};
        }
    }

    @Test
    void acceptsACorrectGradientAndRejectsAWrongOne() {
        Tensor x = Tensor.of(new double[] {0.3, -1.2, 2.0}, 3);
        assertTrue(GradCheck.check(in -> Ops.sum(Ops.mul(Ops.tanh(in[0]), in[0])), x).ok());
        GradCheck.Result wrong = GradCheck.checkOp(new WrongSin(), x);
        assertFalse(wrong.ok(), wrong.toString());
    }

    @Test
    void checksARecordedNodeAtItsCapturedInputs() {
        Tensor a = Tensor.of(new double[] {0.5, 1.5, -1, 2}, 2, 2).setRequiresGrad(true);
        Tensor b = Tensor.of(new double[] {1, -2, 0.5, 3}, 2, 2).setRequiresGrad(true);
        Node n = Node.of(Ops.matmul(a, b));
        assertTrue(GradCheck.checkNode(n).ok());
        Node wrong = Node.of(Ops.apply(new WrongSin(), a));
        assertFalse(GradCheck.checkNode(wrong).ok());
    }
}
