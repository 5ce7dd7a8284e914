package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.check.GradCheck;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Second order for every op-table row (as JAX's {@code check_grads(order=2)}): the VJP recorded as a
 * graph is differentiated again and checked against central differences of the first-order VJP, in
 * float64; and the VJP an op computes in a plain backward pass (fused kernels where it has them)
 * equals the differentiable one.
 */
class SecondOrderTest {
    static Stream<OpRow> rows() {
        return OpRow.load().stream();
    }

    /** The row's inputs, float ones needing a gradient. */
    private static Tensor[] inputs(OpRow row, double[][] values) {
        Tensor[] in = new Tensor[row.inputs().size()];
        for (int i = 0; i < in.length; i++) {
            OpRow.Arr a = row.inputs().get(i);
            in[i] = a.dtype() == DType.INT64 ? a.tensor(DType.FLOAT64) : Tensor.of(values[i], a.shape()).setRequiresGrad(true);
        }
        return in;
    }

    private static double[][] values(OpRow row) {
        return row.inputs().stream().map(OpRow.Arr::data).map(double[]::clone).toArray(double[][]::new);
    }

    /** The VJP of the row's op for upstream u at these input values; with {@code graph}, recorded as a graph. */
    private static Tensor[] vjp(OpRow row, Tensor[] in, boolean graph) {
        Tensor y = Ops.apply(row.create(), in);
        Tensor loss = Ops.sum(Ops.mul(y, row.upstream().tensor(DType.FLOAT64)));
        if (graph) {
            Backward.startCreatingGraph(loss).finish();
        } else {
            Backward.run(loss);
        }
        Tensor[] g = new Tensor[in.length];
        for (int i = 0; i < in.length; i++) {
            if (in[i].requiresGrad()) {
                g[i] = in[i].grad() != null ? in[i].grad() : Ops.mul(in[i], 0.0);
            }
        }
        return g;
    }

    /** Fixed random weights w for the scalar F(x) = Σᵢ ⟨VJPᵢ(x), wᵢ⟩. */
    private static double[][] weights(OpRow row) {
        Random r = new Random(row.index());
        double[][] w = new double[row.inputs().size()][];
        for (int i = 0; i < w.length; i++) {
            w[i] = r.doubles(row.inputs().get(i).data().length, -1, 1).toArray();
        }
        return w;
    }

    private static double f(OpRow row, double[][] values, double[][] w) {
        Tensor[] g = vjp(row, inputs(row, values), false);
        double s = 0;
        for (int i = 0; i < g.length; i++) {
            if (g[i] != null) {
                double[] gi = g[i].toDoubleArray();
                for (int j = 0; j < gi.length; j++) {
                    s += gi[j] * w[i][j];
                }
            }
        }
        return s;
    }

    private static boolean differentiable(OpRow row) {
        return row.inputs().stream().anyMatch(a -> a.dtype() != DType.INT64 && a.data().length > 0);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void doubleBackwardMatchesCentralDifferencesOfTheVjp(OpRow row) {
        if (!differentiable(row) || !row.finite()) {
            return;
        }
        double[][] w = weights(row);
        double[][] x = values(row);
        Tensor[] in = inputs(row, x);
        Tensor[] g = vjp(row, in, true);
        Tensor objective = null;
        for (int i = 0; i < g.length; i++) {
            if (g[i] != null) {
                Tensor term = Ops.sum(Ops.mul(g[i], Tensor.of(w[i], g[i].shape())));
                objective = objective == null ? term : Ops.add(objective, term);
            }
        }
        for (Tensor t : in) {
            t.setGrad(null);
        }
        if (objective.requiresGrad()) {
            Backward.run(objective);
        }
        for (int i = 0; i < in.length; i++) {
            if (!in[i].requiresGrad()) {
                continue;
            }
            double[] analytic = in[i].grad() == null ? new double[x[i].length] : in[i].grad().toDoubleArray();
            double[] numeric = new double[x[i].length];
            for (int j = 0; j < numeric.length; j++) {
                double keep = x[i][j];
                x[i][j] = keep + GradCheck.EPS;
                double plus = f(row, x, w);
                x[i][j] = keep - GradCheck.EPS;
                double minus = f(row, x, w);
                x[i][j] = keep;
                numeric[j] = (plus - minus) / (2 * GradCheck.EPS);
            }
            for (int j = 0; j < numeric.length; j++) {
                double err = Math.abs(analytic[j] - numeric[j]);
                assertTrue(err <= GradCheck.ATOL + GradCheck.RTOL * Math.abs(numeric[j]), row + ": second derivative, input "
                        + i + " element " + j + ": double backward " + analytic[j] + ", central differences " + numeric[j]);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void fusedVjpEqualsTheDifferentiableOne(OpRow row) {
        if (!differentiable(row)) {
            return;
        }
        double[][] x = values(row);
        Tensor[] plain = vjp(row, inputs(row, x), false);
        Tensor[] graph = vjp(row, inputs(row, x), true);
        for (int i = 0; i < plain.length; i++) {
            if (plain[i] != null) {
                assertClose(plain[i].toDoubleArray(), graph[i].toDoubleArray(), 1e-12, 1e-12, row + ": VJP " + i);
            }
        }
    }
}
