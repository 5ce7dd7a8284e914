package io.gradscope.engine.onnx;

import static io.gradscope.engine.onnx.ModelBuilder.floats;
import static io.gradscope.engine.onnx.ModelBuilder.ints;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PyTorch's LayerNorm chain below opset 17 (ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul
 * weight, Add bias) imports as one layer_norm, and stays as it is where it is not one. The gradients
 * are checked against the normalisation computed here in double: the objective is sum(y), so the
 * weight's gradient is the normalised x summed over the rows.
 */
class LayerNormPatternTest {
    private static final int[] SHAPE = {2, 3, 4};
    private static final double EPS = 1e-5;
    @TempDir
    Path dir;

    @Test
    void theZoosEncoderLayerHoldsTwoLayerNormsAndNoneOfTheChain() throws IOException {
        Path onnx = GeneratedWeights.fill(OnnxZooTest.resource("encoder_layer").resolve("model.onnx"), dir.resolve("model.onnx"));
        String program = Files.readString(OnnxImport.run(onnx, dir.resolve("import"), OnnxImport.Options.defaults()).program());
        assertEquals(2, program.split(" = layer_norm\\(", -1).length - 1, program);
        assertFalse(program.contains("sqrt("), program);
        assertFalse(program.contains(" = mean("), program);
    }

    @Test
    void theChainWithWeightAndBiasIsOneLayerNorm() throws IOException {
        Run r = run(chain(-1, false, true), "w", "b");
        assertTrue(r.program.contains(" = layer_norm(x, w, b, eps=1e-05)"), r.program);
        assertFalse(r.program.contains("sqrt("), r.program);
        expectWeightGradient(r, 2);
    }

    @Test
    void meansOverAnotherAxisStayAsTheyAre() throws IOException {
        Run r = run(chain(1, false, true), "w", "b");
        assertFalse(r.program.contains("layer_norm("), r.program);
        assertTrue(r.program.contains("sqrt("), r.program);
        expectWeightGradient(r, 1);
    }

    @Test
    void aCentredValueReadElsewhereStaysAsItIs() throws IOException {
        Run r = run(chain(-1, true, true), "w", "b");
        assertFalse(r.program.contains("layer_norm("), r.program);
        expectWeightGradient(r, 2);
    }

    @Test
    void aScaleThatIsNotPerFeatureLeavesTheNormWithoutWeight() throws IOException {
        // no affine part; the Mul's operand w2 is [3, 4]: layer_norm(x, ones, zeros) then the product
        Run r = run(chain(-1, false, false), "w2");
        assertTrue(r.program.contains("layer_norm("), r.program);
        assertFalse(r.program.contains("sqrt("), r.program);
        double[] yhat = normalised(2);
        double[] want = new double[12];
        for (int i = 0; i < yhat.length; i++) {
            want[i % 12] += yhat[i];
        }
        assertClose(want, r.grads.get("w2").toDoubleArray());
    }

    private record Run(String program, Map<String, Tensor> grads) {
    }

    private Run run(ModelBuilder b, String... params) throws IOException {
        OnnxImport.Result r = OnnxImport.run(b.write(dir.resolve("ln.onnx")), dir.resolve("import"), OnnxImport.Options.defaults());
        ProgramRun run = Program.load(r.program()).run(new RunOptions(DType.FLOAT64, 0,
                Map.of(r.inputs().get("x"), Tensor.of(x(), SHAPE))));
        Map<String, Tensor> grads = new java.util.HashMap<>();
        for (String p : params) {
            grads.put(p, run.gradient(r.initializers().get(p)));
        }
        return new Run(Files.readString(r.program()), grads);
    }

    /** The chain as PyTorch 1.13 writes it, the means over {@code axis}; {@code extraRead}: the centred value is an output too. */
    private static ModelBuilder chain(int axis, boolean extraRead, boolean affine) {
        ModelBuilder b = new ModelBuilder().input("x", SHAPE[0], SHAPE[1], SHAPE[2])
                .initializer(floats("two", new int[0], 2f)).initializer(floats("eps", new int[0], (float) EPS))
                .node("ReduceMean", "/ln/ReduceMean", new String[] {"x"}, new String[] {"m"}, ints("axes", axis))
                .node("Sub", "/ln/Sub", new String[] {"x", "m"}, new String[] {"d"})
                .node("Pow", "/ln/Pow", new String[] {"d", "two"}, new String[] {"p"})
                .node("ReduceMean", "/ln/ReduceMean_1", new String[] {"p"}, new String[] {"v"}, ints("axes", axis))
                .node("Add", "/ln/Add", new String[] {"v", "eps"}, new String[] {"ve"})
                .node("Sqrt", "/ln/Sqrt", new String[] {"ve"}, new String[] {"s"})
                .node("Div", "/ln/Div", new String[] {"d", "s"}, new String[] {"yhat"});
        if (affine) {
            b.initializer(floats("w", new int[] {4}, 0.5f, 1f, 1.5f, -2f)).initializer(floats("b", new int[] {4}, 0.1f, 0.2f, 0.3f, 0.4f))
                    .node("Mul", "/ln/Mul", new String[] {"yhat", "w"}, new String[] {"yw"})
                    .node("Add", "/ln/Add_1", new String[] {"b", "yw"}, new String[] {"y"});
        } else {
            float[] w2 = new float[12];
            for (int i = 0; i < 12; i++) {
                w2[i] = 0.25f * i - 1;
            }
            b.initializer(floats("w2", new int[] {3, 4}, w2)).node("Mul", "/Mul", new String[] {"w2", "yhat"}, new String[] {"y"});
        }
        b.output("y", SHAPE[0], SHAPE[1], SHAPE[2]);
        if (extraRead) {
            b.output("d", SHAPE[0], SHAPE[1], SHAPE[2]);
        }
        return b;
    }

    private static double[] x() {
        double[] x = new double[24];
        for (int i = 0; i < x.length; i++) {
            x[i] = Math.sin(1.3 * i) * (1 + i % 5);
        }
        return x;
    }

    /** x normalised over {@code axis} (1 or 2) of [2, 3, 4], in double. */
    private static double[] normalised(int axis) {
        double[] x = x();
        double[] y = new double[24];
        int stride = axis == 2 ? 1 : 4;
        int n = SHAPE[axis];
        for (int i = 0; i < 24; i++) {
            int start = i - ((i / stride) % n) * stride;
            double mean = 0;
            for (int k = 0; k < n; k++) {
                mean += x[start + k * stride] / n;
            }
            double var = 0;
            for (int k = 0; k < n; k++) {
                var += Math.pow(x[start + k * stride] - mean, 2) / n;
            }
            y[i] = (x[i] - mean) / Math.sqrt(var + (float) EPS);
        }
        return y;
    }

    /** The weight's gradient of sum(yhat * w + b): yhat summed over all but the last axis. */
    private static void expectWeightGradient(Run r, int axis) {
        double[] yhat = normalised(axis);
        double[] want = new double[4];
        for (int i = 0; i < yhat.length; i++) {
            want[i % 4] += yhat[i];
        }
        assertClose(want, r.grads.get("w").toDoubleArray());
        assertClose(new double[] {6, 6, 6, 6}, r.grads.get("b").toDoubleArray());
    }

    private static void assertClose(double[] want, double[] got) {
        assertEquals(want.length, got.length);
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], got[i], 1e-9 * (1 + Math.abs(want[i])), "element " + i);
        }
    }
}
