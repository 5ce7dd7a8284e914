package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every op's JVP, per op-table row in float64: against PyTorch's forward mode, against central
 * differences of the forward along a random tangent, and with the op's VJP through the adjoint
 * identity ⟨J·v, u⟩ = ⟨v, Jᵀ·u⟩.
 */
class JvpTest {
    private static final double EPS = 1e-6;

    static Stream<OpRow> rows() {
        return OpRow.load().stream();
    }

    private static Tensor[] at(OpRow row, double[][] tangents, double step) {
        Tensor[] in = new Tensor[row.inputs().size()];
        for (int i = 0; i < in.length; i++) {
            OpRow.Arr a = row.inputs().get(i);
            if (a.dtype() == DType.INT64) {
                in[i] = a.tensor(DType.INT64);
                continue;
            }
            double[] x = a.data().clone();
            for (int j = 0; j < x.length; j++) {
                x[j] += step * tangents[i][j];
            }
            in[i] = Tensor.of(x, a.shape());
        }
        return in;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void jvpMatchesCentralDifferencesOfTheForward(OpRow row) {
        if (!row.finite()) {
            return;
        }
        Random r = new Random(row.index());
        double[][] v = row.inputs().stream().map(a -> r.doubles(a.data().length, -1, 1).toArray()).toArray(double[][]::new);
        Op op = row.create();
        try (var off = GradMode.disable()) {
            Tensor[] x = at(row, v, 0);
            OpContext ctx = new OpContext(x);
            ctx.setOutput(op.forward(ctx, x));
            Tensor[] tangents = new Tensor[x.length];
            for (int i = 0; i < x.length; i++) {
                tangents[i] = x[i].dtype() == DType.INT64 ? null : Tensor.of(v[i], x[i].shape());
            }
            double[] analytic = op.jvp(ctx, tangents).toDoubleArray();
            double[] plus = Ops.apply(op, at(row, v, EPS)).toDoubleArray();
            double[] minus = Ops.apply(op, at(row, v, -EPS)).toDoubleArray();
            double[] numeric = new double[plus.length];
            for (int j = 0; j < numeric.length; j++) {
                numeric[j] = (plus[j] - minus[j]) / (2 * EPS);
            }
            assertClose(numeric, analytic, 1e-4, 1e-6, row + ": JVP");
        }
    }

    /** The op's JVP at the row's inputs for the row's tangents. */
    private static Tensor jvp(OpRow row) {
        Op op = row.create();
        try (var off = GradMode.disable()) {
            Tensor[] x = row.inputs().stream().map(a -> a.tensor(DType.FLOAT64)).toArray(Tensor[]::new);
            OpContext ctx = new OpContext(x);
            ctx.setOutput(op.forward(ctx, x));
            Tensor[] t = row.tangents().stream().map(a -> a == null ? null : a.tensor(DType.FLOAT64)).toArray(Tensor[]::new);
            return op.jvp(ctx, t);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void jvpMatchesPyTorch(OpRow row) {
        Tensor jv = jvp(row);
        org.junit.jupiter.api.Assertions.assertArrayEquals(row.jvp().shape(), jv.shape(), row + ": JVP shape");
        assertClose(row.jvp().data(), jv.toDoubleArray(), 1e-9, 1e-12, row + ": JVP against PyTorch");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void adjointIdentityHoldsWithTheVjp(OpRow row) {
        if (!row.finite()) {
            return; // a NaN in J·v or Jᵀ·u makes both sides NaN whether or not they agree
        }
        double[] jv = jvp(row).toDoubleArray();
        double[] u = row.upstream().data();
        double left = 0;
        for (int i = 0; i < jv.length; i++) {
            left += jv[i] * u[i];
        }
        Tensor[] x = row.inputs().stream().map(a -> a.tensor(DType.FLOAT64)).toArray(Tensor[]::new);
        for (Tensor t : x) {
            if (t.dtype().isFloating()) {
                t.setRequiresGrad(true);
            }
        }
        Tensor y = Ops.apply(row.create(), x);
        double right = 0;
        if (y.requiresGrad()) {
            io.gradscope.engine.autograd.Backward.run(Ops.sum(Ops.mul(y, row.upstream().tensor(DType.FLOAT64))));
            for (int i = 0; i < x.length; i++) {
                if (row.tangents().get(i) != null && x[i].grad() != null) {
                    double[] g = x[i].grad().toDoubleArray();
                    double[] v = row.tangents().get(i).data();
                    for (int j = 0; j < g.length; j++) {
                        right += g[j] * v[j];
                    }
                }
            }
        }
        assertClose(new double[] {right}, new double[] {left}, 1e-10, 1e-12, row + ": ⟨J·v, u⟩ against ⟨v, Jᵀ·u⟩");
    }
}
