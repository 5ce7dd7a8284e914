package io.gradscope.engine.onnx;

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
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The model zoo (src/test/python/gen_onnx_zoo.py): torchvision's classifiers and torch.nn's blocks as
 * PyTorch 1.13 exports them, imported and run in float64. The objective and, for every parameter, its
 * gradient's norm, its dot product with a fixed pseudo-random vector, its largest magnitude and six
 * sampled elements equal PyTorch's float64 results to rtol 1e-6 (the weights are generated, see
 * {@link GeneratedWeights}; the gradients are too big to commit whole).
 *
 * <p>a sampled element near zero also gets an absolute tolerance of 1e-7 times the gradient's
 * largest magnitude, and the dot product one of 1e-6 times the sum of |g_i r_i|: the exported graphs
 * keep their constants in float32 (GELU's 1/√2, attention's 1/√d), which moves a gradient by about
 * 1e-8 of its scale from PyTorch's float64 run of the same module.
 *
 * <p>{@code -Dzoo.only=resnet18,gru} runs only the models named.
 */
class OnnxZooTest {
    static final double RTOL = 1e-6;
    static final double ATOL_OF_SCALE = 1e-7;

    static Path resource(String name) {
        try {
            return Path.of(OnnxZooTest.class.getResource("/onnx-zoo/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"resnet18", "vgg11", "squeezenet1_0", "mobilenet_v2", "shufflenet_v2_x0_5", "densenet121", "googlenet",
        "efficientnet_b0", "mobilenet_v3_small", "resnet50", "vit_b_16", "encoder_layer", "encoder_layer_mask", "encoder",
        "encoder_mask", "multihead_attention", "gpt_block", "embed_norm_gelu", "lstm", "gru", "lstm_bidirectional", "gru_bidirectional",
        "activations", "swin_t", "r3d_18", "conv3d_block", "pool3d_block", "deeplabv3_mobilenet_v3_large", "convnext_tiny"})
    void gradientsOfEveryParameterEqualPyTorchInFloat64(String model, @TempDir Path out) throws IOException {
        String only = System.getProperty("zoo.only", "");
        Assumptions.assumeTrue(only.isEmpty() || java.util.Arrays.asList(only.split(",")).contains(model), "-Dzoo.only=" + only);
        Path dir = resource(model);
        Path onnx = GeneratedWeights.fill(dir.resolve("model.onnx"), out.resolve("model.onnx"));
        OnnxImport.Result r = OnnxImport.run(onnx, out.resolve("import"), OnnxImport.Options.defaults());
        JsonNode ref = new ObjectMapper().readTree(dir.resolve("reference.json").toFile());
        String input = r.inputs().get("input");
        assertNotNull(input, "the graph input 'input' has no program name: " + r.inputs());
        ProgramRun run = Program.load(r.program()).run(new RunOptions(DType.FLOAT64, 0, Map.of(input, Npy.read(dir.resolve("input.npy")))));
        double objective = ref.get("objective").asDouble();
        double worst = rel(objective, run.objective().item());
        assertTrue(worst <= RTOL, model + ": objective " + run.objective().item() + ", PyTorch's " + objective);
        int checked = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = ref.get("grads").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode c = e.getValue();
            String name = r.initializers().get(e.getKey());
            assertNotNull(name, model + ": the parameter '" + e.getKey() + "' is not in the program");
            Tensor g = run.gradient(name);
            assertNotNull(g, model + ": '" + name + "' has no gradient");
            double[] x = g.toDoubleArray();
            String what = model + ": gradient of " + e.getKey() + " (" + name + ")";
            assertEquals(c.get("shape").size(), g.shape().length, what + ": rank");
            worst = Math.max(worst, checkGradient(x, c, what));
            checked++;
        }
        assertTrue(checked > 0, model + ": no gradients checked");
        System.out.printf("%s: objective and %d parameter gradients, largest error %.1e relative%n", model, checked, worst);
    }

    /** Checks one gradient against its reference summary; returns the largest relative error seen. */
    static double checkGradient(double[] x, JsonNode c, String what) {
        double[] r = GeneratedWeights.uniform(999, x.length);
        double norm = 0;
        double dot = 0;
        double max = 0;
        for (int i = 0; i < x.length; i++) {
            norm += x[i] * x[i];
            dot += x[i] * (2 * r[i] - 1);
            max = Math.max(max, Math.abs(x[i]));
        }
        norm = Math.sqrt(norm);
        double refMax = c.get("max").asDouble();
        double worst = 0;
        worst = Math.max(worst, expect(what + ": L2 norm", c.get("norm").asDouble(), norm, 0));
        worst = Math.max(worst, expect(what + ": largest magnitude", refMax, max, 0));
        worst = Math.max(worst, expect(what + ": dot product with the fixed vector", c.get("dot").asDouble(), dot,
                c.get("absdot").asDouble()));
        for (JsonNode s : c.get("samples")) {
            int i = s.get(0).asInt();
            worst = Math.max(worst, expect(what + ": element " + i, s.get(1).asDouble(), x[i], ATOL_OF_SCALE / RTOL * refMax));
        }
        return worst;
    }

    /** Asserts |actual - expected| <= RTOL * max(|expected|, scale); returns the error relative to that. */
    private static double expect(String what, double expected, double actual, double scale) {
        double err = Math.abs(actual - expected) / Math.max(Math.max(Math.abs(expected), scale), Double.MIN_NORMAL);
        assertTrue(err <= RTOL, what + ": " + actual + ", PyTorch's " + expected + " (relative error " + err + ")");
        return err;
    }

    private static double rel(double expected, double actual) {
        return Math.abs(actual - expected) / Math.max(Math.abs(expected), Double.MIN_NORMAL);
    }
}
