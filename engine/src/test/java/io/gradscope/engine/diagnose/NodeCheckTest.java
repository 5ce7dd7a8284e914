package io.gradscope.engine.diagnose;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.autograd.Gradients;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A planted wrong VJP is found at exactly its node; correct programs pass everywhere. */
class NodeCheckTest {
    /** x² with a planted mistake in its VJP: g ⊙ x instead of 2·g ⊙ x. */
    static class WrongSquare extends Op {
        @Override
        public String name() {
            return "mul";
        }

        @Override
        public String label() {
            return "wrong_square";
        }

        @Override
        public String rule() {
            return "dx = g ⊙ x  (planted mistake: should be 2·g ⊙ x)";
        }

        @Override
        public int[] outputShape(int[][] shapes, DType[] dtypes) {
            return shapes[0].clone();
        }

        @Override
        public Tensor forward(OpContext ctx, Tensor... in) {
            return Ops.mul(in[0], in[0]);
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            return new Tensor[] {Ops.mul(g, ctx.input(0))};
        }
    }

    @Test
    void thePlantedWrongVjpFailsAndNothingElse() {
        Tensor x = Tensor.of(new double[] {0.3, -1.2, 0.8, 2.0}, 2, 2).setRequiresGrad(true);
        Tensor w = Tensor.of(new double[] {0.5, -0.25, 1.5, 0.75}, 2, 2).setRequiresGrad(true);
        Tensor h = Ops.tanh(Ops.matmul(x, w));
        Tensor wrong = Ops.apply(new WrongSquare(), h);
        Tensor loss = Ops.mean(Ops.mul(Ops.sigmoid(wrong), h));
        Gradients g = Backward.run(loss);
        List<NodeCheck.Result> results = NodeCheck.all(g.byNode().keySet(), 64);
        assertEquals(6, results.size(), "matmul, tanh, wrong_square, sigmoid, mul, mean");
        for (NodeCheck.Result r : results) {
            boolean planted = r.node().op() instanceof WrongSquare;
            assertEquals(!planted, r.ok(), r.node().op().label() + ": " + r.worst());
            assertTrue(r.checked() > 0);
        }
    }

    /** x², with a VJP wrong at one element only (the last). */
    static final class WrongAtOneElement extends WrongSquare {
        @Override
        public String label() {
            return "wrong_at_one";
        }

        @Override
        public String rule() {
            return "dx = 2·g ⊙ x, but 3·g·x at the last element (planted)";
        }

        @Override
        public Tensor[] vjp(OpContext ctx, Tensor g) {
            double[] scale = new double[(int) g.numel()];
            java.util.Arrays.fill(scale, 2);
            scale[scale.length - 1] = 3;
            return new Tensor[] {Ops.mul(Ops.mul(g, ctx.input(0)), Tensor.of(scale, g.shape()))};
        }
    }

    @Test
    void byDefaultEveryElementOfAnInputUpToFourThousandIsChecked() {
        double[] v = new double[3000];
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.sin(i) + 0.1;
        }
        Tensor x = Tensor.of(v, 3000).setRequiresGrad(true);
        Gradients g = Backward.run(Ops.sum(Ops.apply(new WrongAtOneElement(), x)));
        NodeCheck.Result r = NodeCheck.all(g.byNode().keySet(), NodeCheck.DEFAULT_SAMPLES).stream()
                .filter(c -> c.node().op() instanceof WrongAtOneElement).findFirst().orElseThrow();
        assertEquals(3000, r.checked());
        assertFalse(r.ok(), "the one wrong element is found");
        assertTrue(r.worst().startsWith("input 1 element 2999"), r.worst());
    }

    @Test
    void everyExampleNodePasses() {
        for (String ex : List.of("mlp.grad", "transformer_block.grad", "course/05_layernorm.grad")) {
            ProgramRun run = Program.load(Path.of("../assets/examples").resolve(ex)).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
            List<NodeCheck.Result> results = NodeCheck.all(run.gradients().byNode().keySet(), 16);
            assertFalse(results.isEmpty());
            for (NodeCheck.Result r : results) {
                assertTrue(r.ok(), ex + " " + r.node().op().label() + ": " + r.worst());
            }
        }
    }

    private static NodeCheck.Result checkOf(String program, String op) {
        ProgramRun run = Program.parse("t.grad", program).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        return NodeCheck.all(run.gradients().byNode().keySet(), 64).stream()
                .filter(r -> r.node().op().label().equals(op)).findFirst().orElseThrow();
    }

    @Test
    void centralDifferencesThatSayNothingAreNotCheckableRatherThanFailures() {
        // sqrt at 0: sqrt(-eps) is NaN, the VJP is +Inf; nothing to compare.
        NodeCheck.Result sqrt = checkOf("a = param(3, init=\"zeros\")\nb = sqrt(a)\nL = sum(b)\n", "sqrt");
        assertTrue(sqrt.ok() && !sqrt.checkable(), sqrt.verdict());
        assertEquals(3, sqrt.skipped());
        assertTrue(sqrt.verdict().startsWith("not checkable: "), sqrt.verdict());
        // A sum of values one of which is NaN: every difference is NaN.
        NodeCheck.Result sum = checkOf("a = param(3, init=\"ones\")\nb = log(a - 2)\nL = sum(b)\n", "sum");
        assertFalse(sum.checkable(), sum.verdict());
        // relu at exactly 0 is a kink (one-sided slopes 0 and 1); the other elements are checked and pass.
        NodeCheck.Result relu = checkOf("a = param(3, init=\"ones\")\nb = relu(a - 1 + a * 0)\nc = relu(a)\nL = sum(b) + sum(c)\n", "relu");
        assertTrue(relu.ok(), relu.verdict());
        // A wrong VJP next to a skipped element still fails.
        Tensor x = Tensor.of(new double[] {0.3, -1.2, 0.8, 2.0}, 2, 2).setRequiresGrad(true);
        Gradients g = Backward.run(Ops.sum(Ops.apply(new WrongSquare(), Ops.sqrt(Ops.relu(x)))));
        NodeCheck.Result wrong = NodeCheck.all(g.byNode().keySet(), 64).stream()
                .filter(r -> r.node().op() instanceof WrongSquare).findFirst().orElseThrow();
        assertFalse(wrong.ok(), wrong.verdict());
        NodeCheck.Result root = NodeCheck.all(g.byNode().keySet(), 64).stream()
                .filter(r -> r.node().op().label().equals("sqrt")).findFirst().orElseThrow();
        assertTrue(root.ok() && root.checkable() && root.skipped() == 1, root.verdict());
    }
}
