package io.gradscope.engine.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl;
import com.google.protobuf.ByteString;
import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.MemoryOptions;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The steps gen_steps.py captured (a CNN with batch norm in training mode, a transformer with a padding
 * mask and label smoothing, an LSTM classifier) run from the folder, in float64 from the captured
 * float32 weights, with the objective and every parameter's gradient equal to PyTorch's float64 run of
 * the same step (float64/, computed by a float64 copy of the model) to 1e-5 normwise.
 */
class StepFolderTest {
    static final double NORMWISE = 1e-5;

    static Path fixture(String name) {
        try {
            return Path.of(StepFolderTest.class.getResource("/step/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    record Ran(StepFolder step, StepFolder.Imported imported, Program program, ProgramRun run) {
    }

    static Ran run(Path dir, Path tmp, DType dtype) {
        StepFolder step = StepFolder.read(dir);
        StepFolder.Imported im = step.importInto(tmp);
        Program p = Program.load(im.program());
        p.check(dtype);
        ProgramRun run = p.run(new RunOptions(dtype, 0, Map.of()), new MemoryOptions(RematPolicy.SEGMENTS, true), (a, b, c) -> { });
        return new Ran(step, im, p, run);
    }

    static double normwise(double[] ours, double[] ref) {
        double d = 0;
        double n = 0;
        for (int i = 0; i < ref.length; i++) {
            d += (ours[i] - ref[i]) * (ours[i] - ref[i]);
            n += ref[i] * ref[i];
        }
        return Math.sqrt(d) / Math.sqrt(n);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cnn", "transformer", "lstm"})
    void objectiveAndGradientsEqualPyTorchsFloat64(String name, @TempDir Path tmp) {
        Path dir = fixture(name);
        Ran r = run(dir, tmp, DType.FLOAT64);
        double loss = Npy.read(dir.resolve("float64/loss.npy")).item();
        assertEquals(loss, r.run().objective().item(), NORMWISE * Math.abs(loss), name + ": the loss");
        assertEquals(r.step().torchGradients().keySet(), r.imported().parameters().keySet());
        for (String param : r.step().torchGradients().keySet()) {
            String node = r.imported().parameters().get(param);
            assertNotNull(node, name + ": " + param + " is not in the program");
            Tensor ref = Npy.read(dir.resolve("float64/grad/" + param + ".npy"));
            Tensor g = r.run().gradient(node);
            assertEquals(java.util.Arrays.toString(ref.shape()), java.util.Arrays.toString(g.shape()), param);
            double err = normwise(g.toDoubleArray(), ref.toDoubleArray());
            assertTrue(err <= NORMWISE, name + ": gradient of " + param + " off by " + err + " normwise");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"cnn", "transformer", "lstm"})
    void nothingDivergesFromPyTorchsFloat32Step(String name, @TempDir Path tmp) {
        Ran r = run(fixture(name), tmp, DType.FLOAT64);
        StepDiff d = StepDiff.of(r.step(), r.imported(), r.program(), r.run());
        assertEquals(r.step().torchValues().size() + 1 + r.step().torchGradients().size(), d.rows().size(),
                "a row per module output, the loss and a row per parameter");
        assertTrue(d.first().isEmpty(), name + ": " + d.first());
    }

    @Test
    void aChangedWeightIsTheFirstDivergenceAtItsModule(@TempDir Path tmp) throws IOException {
        Path step = copy(fixture("transformer"), tmp.resolve("step"));
        plant(step.resolve("model.onnx"), "model.layers.1.mlp.0.weight");
        Ran r = run(step, tmp.resolve("import"), DType.FLOAT64);
        StepDiff d = StepDiff.of(r.step(), r.imported(), r.program(), r.run());
        StepDiff.Row first = d.first().orElseThrow();
        assertEquals("layers.1.mlp.0", first.name(), d.rows().toString());
        assertEquals(StepDiff.Kind.VALUE, first.kind());
        for (StepDiff.Row row : d.rows()) {
            if (row.kind() == StepDiff.Kind.VALUE && row.line() < first.line()) {
                assertTrue(!row.diverges(), row.name() + " is before the changed weight");
            }
        }
    }

    /** Adds 0.5 to the first element of an initializer (float32, raw_data little-endian). */
    static void plant(Path onnx, String initializer) throws IOException {
        OnnxMl.ModelProto m = OnnxMl.ModelProto.parseFrom(Files.readAllBytes(onnx));
        OnnxMl.GraphProto.Builder g = m.getGraph().toBuilder();
        for (int i = 0; i < g.getInitializerCount(); i++) {
            if (g.getInitializer(i).getName().equals(initializer)) {
                ByteBuffer raw = ByteBuffer.wrap(g.getInitializer(i).getRawData().toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
                raw.putFloat(0, raw.getFloat(0) + 0.5f);
                g.setInitializer(i, g.getInitializer(i).toBuilder().setRawData(ByteString.copyFrom(raw.array())));
                Files.write(onnx, m.toBuilder().setGraph(g).build().toByteArray());
                return;
            }
        }
        throw new IllegalArgumentException("no initializer " + initializer);
    }

    static Path copy(Path from, Path to) throws IOException {
        try (var files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
        return to;
    }

    @Test
    void badFoldersAreOneLine(@TempDir Path tmp) throws IOException {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertTrue(message(empty).contains("not a captured step: no manifest.json"), message(empty));
        assertTrue(message(tmp.resolve("nothing")).contains("not a folder"));
        Files.writeString(empty.resolve("manifest.json"), "{ not json");
        assertTrue(message(empty).contains("manifest.json: not a step manifest ("), message(empty));
        Files.writeString(empty.resolve("manifest.json"), "{\"format\": \"other 2\"}");
        assertTrue(message(empty).contains("its format is 'other 2', not 'gradscope-step 1'"), message(empty));
        Path step = copy(fixture("cnn"), tmp.resolve("step"));
        Files.delete(step.resolve("batch/input0.npy"));
        assertTrue(message(step).endsWith("manifest.json: names batch/input0.npy, which is missing"), message(step));
        for (Path p : new Path[] {empty, step, tmp.resolve("nothing")}) {
            assertEquals(1, message(p).lines().count());
        }
    }

    private static String message(Path dir) {
        return assertThrows(GradscopeException.class, () -> StepFolder.read(dir)).getMessage();
    }
}
