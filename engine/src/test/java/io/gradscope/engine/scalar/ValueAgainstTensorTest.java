package io.gradscope.engine.scalar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The scalar {@link Value} engine and the tensor engine on the same small programs of several ops:
 * written once as a {@code .grad} program and once element by element with Values, their objectives
 * and every leaf's gradient agree to float64 rounding (the two share no code).
 */
class ValueAgainstTensorTest {
    private static final String PROGRAM = String.join("\n",
            "X = input(4, 3)",
            "W = param(3, 2)",
            "b = param(2)",
            "z = X @ W + b",
            "h = tanh(z)",
            "r = relu(z) + 1",
            "e = exp(h) / r",
            "L = sum(log(e * e + 1) - h ** 2 + (z - h) * 0.5)",
            "");

    @Test
    void aNeuronLayerOfSeveralOpsHasTheSameGradientsInBothEngines() {
        Random rnd = new Random(3);
        for (int trial = 0; trial < 5; trial++) {
            double[] x = gaussian(rnd, 12);
            double[] w = gaussian(rnd, 6);
            double[] bb = gaussian(rnd, 2);
            ProgramRun run = Program.parse("layer.grad", PROGRAM).run(new RunOptions(DType.FLOAT64, 0, Map.of(
                    "X", Tensor.of(x, 4, 3), "W", Tensor.of(w, 3, 2), "b", Tensor.of(bb, 2))));

            Value[] wv = values(w, "W");
            Value[] bv = values(bb, "b");
            Value loss = new Value(0, "L");
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 2; j++) {
                    Value z = bv[j];
                    for (int k = 0; k < 3; k++) {
                        z = new Value(x[i * 3 + k], "x").mul(wv[k * 2 + j]).add(z);
                    }
                    Value h = z.tanh();
                    Value r = z.relu().add(1);
                    Value e = h.exp().div(r);
                    Value term = e.mul(e).add(1).log().sub(h.pow(2)).add(z.sub(h).mul(0.5));
                    loss = loss.add(term);
                }
            }
            loss.backward();

            assertEquals(run.objective().item(), loss.data(), 1e-12 * Math.max(1, Math.abs(loss.data())));
            assertClose(run.gradient("W").toDoubleArray(), wv, "W");
            assertClose(run.gradient("b").toDoubleArray(), bv, "b");
        }
    }

    private static double[] gaussian(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
    }

    private static Value[] values(double[] d, String name) {
        Value[] v = new Value[d.length];
        for (int i = 0; i < d.length; i++) {
            v[i] = new Value(d[i], name + i);
        }
        return v;
    }

    private static void assertClose(double[] tensor, Value[] scalars, String name) {
        for (int i = 0; i < tensor.length; i++) {
            assertEquals(tensor[i], scalars[i].grad(), 1e-12 * Math.max(1, Math.abs(tensor[i])), name + "[" + i + "]");
        }
    }
}
