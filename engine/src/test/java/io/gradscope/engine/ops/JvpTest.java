package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;

import io.gradscope.engine.autograd.GradMode;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JVPs the ops have today (every linear op through its spec, every elementwise function through
 * its derivative, matmul and pow) against central differences of the forward along a random
 * tangent, in float64. The forward-mode issue extends this to every op.
 */
class JvpTest {
    private static final double EPS = 1e-6;

    static Stream<OpRow> rows() {
        return OpRow.load().stream().filter(r -> {
            OpSpec s = OpRegistry.spec(r.op());
            return s.linear() || s.elementwise() || r.op().equals("matmul") || r.op().equals("pow");
        });
    }

    private static Tensor[] at(OpRow row, double[][] tangents, double step) {
        Tensor[] in = new Tensor[row.inputs().size()];
        for (int i = 0; i < in.length; i++) {
            double[] x = row.inputs().get(i).data().clone();
            for (int j = 0; j < x.length; j++) {
                x[j] += step * tangents[i][j];
            }
            in[i] = Tensor.of(x, row.inputs().get(i).shape());
        }
        return in;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void jvpMatchesCentralDifferencesOfTheForward(OpRow row) {
        Random r = new Random(row.index());
        double[][] v = row.inputs().stream().map(a -> r.doubles(a.data().length, -1, 1).toArray()).toArray(double[][]::new);
        Op op = row.create();
        try (var off = GradMode.disable()) {
            Tensor[] x = at(row, v, 0);
            OpContext ctx = new OpContext(x);
            ctx.setOutput(op.forward(ctx, x));
            Tensor[] tangents = new Tensor[x.length];
            for (int i = 0; i < x.length; i++) {
                tangents[i] = Tensor.of(v[i], x[i].shape());
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
}
