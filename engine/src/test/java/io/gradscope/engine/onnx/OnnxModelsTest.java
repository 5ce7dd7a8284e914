package io.gradscope.engine.onnx;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Models exported from PyTorch 1.13 (src/test/python/gen_onnx_models.py) imported and run: the
 * objective (the sum of the output) and the gradient of every parameter equal PyTorch's float64
 * results from the same weights, to rtol 1e-6.
 *
 * <p>elements near zero also get an absolute tolerance of 1e-7 times the gradient's largest
 * magnitude: an exported graph keeps its constants in float32 (GELU's √2 is 1.41421354), which moves
 * a gradient by about 1e-8 of its scale from PyTorch's float64 run of the same module.
 */
class OnnxModelsTest {
    static final double RTOL = 1e-6;
    static final double ATOL_OF_SCALE = 1e-7;

    static Path resource(String name) {
        try {
            return Path.of(OnnxModelsTest.class.getResource("/onnx/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cnn", "lenet", "mlp", "transformer13", "transformer17", "embedding", "resnet", "misc", "mha", "ceilpool", "tensorops", "cnn_train"})
    void gradientsOfEveryParameterEqualPyTorchInFloat64(String model, @TempDir Path out) throws IOException {
        Path dir = resource(model);
        OnnxImport.Result r = OnnxImport.run(dir.resolve("model.onnx"), out, OnnxImport.Options.defaults());
        JsonNode ref = new ObjectMapper().readTree(dir.resolve("reference.json").toFile());
        String input = r.inputs().get("input");
        assertNotNull(input, "the graph input 'input' has no program name: " + r.inputs());
        ProgramRun run = Program.load(r.program()).run(new RunOptions(DType.FLOAT64, 0, Map.of(input, Npy.read(dir.resolve("input.npy")))));
        String program = Files.readString(r.program());
        assertClose(new double[] {ref.get("objective").asDouble()}, new double[] {run.objective().item()}, RTOL, 0,
                model + ": objective\n" + program);
        int checked = 0;
        double worst = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = ref.get("grads").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isNull()) {
                continue;
            }
            String name = r.initializers().get(e.getKey());
            assertNotNull(name, model + ": the parameter '" + e.getKey() + "' is not in the program\n" + program);
            Tensor expected = Npy.read(dir.resolve("grad").resolve(e.getValue().asText()));
            Tensor actual = run.gradient(name);
            assertNotNull(actual, model + ": '" + name + "' has no gradient");
            double scale = 0;
            for (double v : expected.toDoubleArray()) {
                scale = Math.max(scale, Math.abs(v));
            }
            assertClose(expected, actual, RTOL, ATOL_OF_SCALE * scale, model + ": gradient of " + e.getKey() + " (" + name + ")");
            double[] x = expected.toDoubleArray();
            double[] y = actual.toDoubleArray();
            for (int i = 0; i < x.length; i++) {
                worst = Math.max(worst, Math.abs(x[i] - y[i]) / Math.max(Math.abs(x[i]), scale * 1e-3));
            }
            checked++;
        }
        assertTrue(checked > 0, model + ": no gradients checked");
        System.out.printf("%s: %d parameter gradients, largest error %.1e relative (to 1e-3 of the gradient's scale near 0)%n",
                model, checked, worst);
        assertEquals(checked, ref.get("grads").size() - countNulls(ref.get("grads")));
    }

    /** PyTorch's exact GELU (Div by √2, Erf, Add 1, Mul x, Mul 0.5) imports as one gelu call, its gradients checked above. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"transformer13", "transformer17", "mha"})
    void exactGeluIsOneCall(String model, @TempDir Path out) throws IOException {
        OnnxImport.Result r = OnnxImport.run(resource(model).resolve("model.onnx"), out, OnnxImport.Options.defaults());
        String program = Files.readString(r.program());
        assertTrue(program.contains(" = gelu("), model + ": no gelu call\n" + program);
        assertTrue(!program.contains("erf("), model + ": an erf left over\n" + program);
    }

    private static int countNulls(JsonNode grads) {
        int n = 0;
        for (JsonNode v : grads) {
            n += v.isNull() ? 1 : 0;
        }
        return n;
    }
}
