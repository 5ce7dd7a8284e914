package io.gradscope.engine.onnx;

import static io.gradscope.engine.Assertions2.assertClose;
import static io.gradscope.engine.onnx.ModelBuilder.floats;
import static io.gradscope.engine.onnx.ModelBuilder.integer;

import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The paths of the LSTM/GRU unrolling that PyTorch's exports do not take (the zoo covers theirs):
 * without initial states the layer starts from zeros, so it equals the same layer given explicit
 * zero states, in the objective and in every weight's gradient.
 */
class OnnxRecurrentTest {
    @TempDir
    Path dir;

    private static float[] random(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() * 0.5);
        }
        return v;
    }

    /** A one-layer LSTM or GRU (T 3, B 2, I 2, H 3) over {@code x}, with or without explicit zero initial states. */
    private record Outcome(double objective, Map<String, Tensor> grads) {
    }

    private Outcome run(String op, String direction, boolean explicitStates, String file) throws IOException {
        int dirs = direction.equals("bidirectional") ? 2 : 1;
        int g = op.equals("LSTM") ? 4 : 3;
        int h = 3;
        ModelBuilder b = new ModelBuilder().input("x", 3, 2, 2)
                .initializer(floats("W", new int[] {dirs, g * h, 2}, random(dirs * g * h * 2, 1)))
                .initializer(floats("R", new int[] {dirs, g * h, h}, random(dirs * g * h * h, 2)))
                .initializer(floats("B", new int[] {dirs, 2 * g * h}, random(dirs * 2 * g * h, 3)))
                .initializer(floats("S", new int[] {dirs, 2, h}, new float[dirs * 2 * h]));
        String[] ins = explicitStates ? (op.equals("LSTM") ? new String[] {"x", "W", "R", "B", "", "S", "S"}
                : new String[] {"x", "W", "R", "B", "", "S"}) : new String[] {"x", "W", "R", "B"};
        b.node(op, "/rnn/" + op, ins, new String[] {"y"}, integer("hidden_size", h), integer("linear_before_reset", 1),
                        ModelBuilder.string("direction", direction))
                .output("y", 3, dirs, 2, h);
        OnnxImport.Result r = OnnxImport.run(b.write(dir.resolve(file + ".onnx")), dir.resolve(file), OnnxImport.Options.defaults());
        Tensor x = Tensor.fromDoubles(DType.FLOAT64, new Random(4).doubles(12).map(v -> v - 0.5).toArray(), 3, 2, 2);
        ProgramRun run = Program.load(r.program()).run(new RunOptions(DType.FLOAT64, 0, Map.of(r.inputs().get("x"), x)));
        Map<String, Tensor> grads = new java.util.HashMap<>();
        for (String w : new String[] {"W", "R", "B"}) {
            grads.put(w, run.gradient(r.initializers().get(w)));
        }
        return new Outcome(run.objective().item(), grads);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"LSTM forward", "LSTM reverse", "LSTM bidirectional", "GRU forward", "GRU bidirectional"})
    void withoutInitialStatesTheLayerStartsFromZeros(String which) throws IOException {
        String op = which.split(" ")[0];
        String direction = which.split(" ")[1];
        Outcome plain = run(op, direction, false, "plain");
        Outcome zeros = run(op, direction, true, "zeros");
        assertClose(new double[] {zeros.objective()}, new double[] {plain.objective()}, 1e-12, 0, which + ": objective");
        for (String w : new String[] {"W", "R", "B"}) {
            assertClose(zeros.grads().get(w), plain.grads().get(w), 1e-12, 1e-14, which + ": gradient of " + w);
        }
    }
}
