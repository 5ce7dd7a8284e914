package io.gradscope.engine.autograd;

import io.gradscope.engine.ops.GradMode;
import static io.gradscope.engine.Assertions2.assertBitsEqual;
import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BackwardTest {

    @Test
    void chainOfOneHundredThousandNodesDoesNotOverflowTheStack() {
        double x0 = 0.7;
        Tensor x = Tensor.of(new double[] {x0}, 1).setRequiresGrad(true);
        Tensor y = x;
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            y = Ops.sin(y);
        }
        Backward.run(Ops.sum(y));
        // Independent: d/dx sin(sin(...sin(x))) = Π cos(x_i) along the chain.
        double v = x0;
        double d = 1;
        for (int i = 0; i < n; i++) {
            d *= Math.cos(v);
            v = Math.sin(v);
        }
        assertClose(new double[] {v}, y.toDoubleArray(), 1e-12, 0, "chain value");
        assertClose(new double[] {d}, x.grad().toDoubleArray(), 1e-9, 1e-15, "chain gradient");
    }

    @Test
    void fanOutAccumulatesEveryContribution() {
        Tensor x = Tensor.of(new double[] {-1.5, 0.5, 2}, 3).setRequiresGrad(true);
        // f = sum(x*x + x + exp(x)); df/dx = 2x + 1 + e^x
        Tensor f = Ops.sum(Ops.add(Ops.add(Ops.mul(x, x), x), Ops.exp(x)));
        Backward.run(f);
        double[] xs = {-1.5, 0.5, 2};
        double[] expected = new double[3];
        for (int i = 0; i < 3; i++) {
            expected[i] = 2 * xs[i] + 1 + Math.exp(xs[i]);
        }
        assertClose(expected, x.grad().toDoubleArray(), 1e-14, 0, "fan-out gradient");
    }

    @Test
    void broadcastGradientsAreReducedToTheInputShape() {
        Tensor a = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, 2, 3).setRequiresGrad(true);
        Tensor b = Tensor.of(new double[] {10, 20, 30}, 3).setRequiresGrad(true);
        Backward.run(Ops.sum(Ops.mul(a, b)));
        assertClose(new double[] {5, 7, 9}, b.grad().toDoubleArray(), 0, 0, "db = column sums of a");
        assertClose(new double[] {10, 20, 30, 10, 20, 30}, a.grad().toDoubleArray(), 0, 0, "da = b broadcast");
    }

    @Test
    void stepsVisitEveryNodeInReverseCreationOrderWithCompleteUpstreamGradients() {
        Tensor x = Tensor.of(new double[] {1, -2, 3, 0.5, 2, -1}, 2, 3);
        Tensor w = Tensor.of(new double[] {0.5, -1, 2, 1, -0.5, 0.25}, 3, 2).setRequiresGrad(true);
        Tensor h = Ops.relu(Ops.matmul(x, w));
        Tensor loss = Ops.sum(Ops.mul(h, h));
        BackwardRun run = Backward.start(loss);
        int total = run.totalSteps();
        List<TraceEvent.BackwardStep> steps = new ArrayList<>();
        while (run.hasNext()) {
            steps.add(run.step());
        }
        assertEquals(total, steps.size());
        assertEquals(5, total, "sum, mul, relu, matmul, and the leaf w");
        for (int i = 1; i < steps.size(); i++) {
            assertTrue(steps.get(i).node() < steps.get(i - 1).node(), "ids decrease: reverse topological order");
        }
        // The upstream gradient of every node equals the sum of the contributions sent to it.
        Map<Long, double[]> received = new HashMap<>();
        for (TraceEvent.BackwardStep s : steps) {
            double[] up = s.upstream().toDoubleArray();
            if (received.containsKey(s.node())) {
                assertClose(received.get(s.node()), up, 1e-15, 0, "upstream of node " + s.node());
            }
            for (TraceEvent.Contribution c : s.contributions()) {
                double[] g = c.gradient().toDoubleArray();
                received.merge(c.toNode(), g, (p, q) -> {
                    double[] r = p.clone();
                    for (int i = 0; i < r.length; i++) {
                        r[i] += q[i];
                    }
                    return r;
                });
            }
        }
        // mul(h, h) sends two contributions to relu's node; the leaf's step has none.
        assertEquals(2, steps.get(1).contributions().size());
        assertTrue(steps.get(total - 1).contributions().isEmpty());
        // Independent check of dL/dW = xᵀ (2h ⊙ [xW > 0]).
        double[] xv = x.toDoubleArray();
        double[] wv = w.toDoubleArray();
        double[] dw = new double[6];
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 2; j++) {
                double z = 0;
                for (int k = 0; k < 3; k++) {
                    z += xv[i * 3 + k] * wv[k * 2 + j];
                }
                double gz = z > 0 ? 2 * z : 0;
                for (int k = 0; k < 3; k++) {
                    dw[k * 2 + j] += xv[i * 3 + k] * gz;
                }
            }
        }
        assertClose(dw, w.grad().toDoubleArray(), 1e-14, 1e-15, "dW");
        assertClose(dw, steps.get(total - 1).upstream().toDoubleArray(), 1e-14, 1e-15, "the leaf's step shows dW");
    }

    @Test
    void twoRunsGiveIdenticalBits() {
        Tensor x = Tensor.of(new double[] {0.3, -0.7, 1.1, 0.2}, 2, 2).setRequiresGrad(true);
        Tensor y = Ops.tanh(Ops.matmul(x, x));
        Tensor f = Ops.add(Ops.sum(Ops.mul(y, x)), Ops.mean(Ops.softmax(y, -1)));
        Backward.run(f);
        double[] first = x.grad().toDoubleArray();
        Backward.run(f);
        assertBitsEqual(first, x.grad().toDoubleArray(), "second run");
    }

    @Test
    void nonScalarObjectiveIsAClearError() {
        Tensor x = Tensor.of(new double[] {1, 2}, 2).setRequiresGrad(true);
        GradscopeException e = assertThrows(GradscopeException.class, () -> Backward.run(Ops.mul(x, x)));
        assertTrue(e.getMessage().contains("[2]") && e.getMessage().contains("sum() or mean()"), e.getMessage());
    }

    @Test
    void inputsWithoutGradientGetNoneAndNoStep() {
        Tensor x = Tensor.of(new double[] {1, 2}, 2);
        Tensor w = Tensor.of(new double[] {3, 4}, 2).setRequiresGrad(true);
        Gradients g = Backward.run(Ops.sum(Ops.mul(x, w)));
        assertNull(x.grad());
        assertNull(g.of(x));
        assertClose(new double[] {1, 2}, w.grad().toDoubleArray(), 0, 0, "dw = x");
    }

    @Test
    void noGradModeRecordsNothing() {
        Tensor w = Tensor.of(new double[] {3, 4}, 2).setRequiresGrad(true);
        Tensor y;
        try (var off = GradMode.disable()) {
            y = Ops.mul(w, w);
        }
        assertFalse(y.requiresGrad());
        assertNull(y.node());
    }

    @Test
    void createGraphGivesDifferentiableGradients() {
        // f = sum(x³); df/dx = 3x²; d/dx sum(3x² ⊙ v) = 6x ⊙ v
        Tensor x = Tensor.of(new double[] {0.5, -2}, 2).setRequiresGrad(true);
        Tensor f = Ops.sum(Ops.pow(x, 3));
        Backward.startCreatingGraph(f).finish();
        Tensor g = x.grad();
        assertTrue(g.requiresGrad());
        Tensor v = Tensor.of(new double[] {1, 3}, 2);
        Backward.run(Ops.sum(Ops.mul(g, v)));
        assertClose(new double[] {6 * 0.5 * 1, 6 * -2 * 3}, x.grad().toDoubleArray(), 1e-14, 0, "Hessian-vector product");
    }
}
