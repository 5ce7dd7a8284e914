package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Npy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gradscope run STEP/} and {@code gradscope diff STEP/} on the steps gen_steps.py captured: the
 * objective and the gradients by PyTorch name equal PyTorch's float64 step (float64/), the diff names
 * no divergence, or a planted one; a folder that is not a step is one line, exit 2.
 */
class StepCommandsTest {
    static final Path STEPS = io.gradscope.app.service.StepFixtures.STEPS;

    @Test
    void runWritesEveryGradientByPyTorchName(@TempDir Path tmp) throws IOException {
        Path step = STEPS.resolve("cnn");
        Cli.Result r = Cli.run("run", step.toString(), "--dtype", "float64", "--out", tmp.resolve("out").toString());
        assertEquals(0, r.status(), r.err());
        double loss = Npy.read(step.resolve("float64/loss.npy")).item();
        assertEquals(loss, Double.parseDouble(r.out().strip()), 1e-5 * Math.abs(loss), r.out());
        List<String> want;
        try (Stream<Path> files = Files.list(step.resolve("float64/grad"))) {
            want = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        List<String> got;
        try (Stream<Path> files = Files.list(tmp.resolve("out/grad"))) {
            got = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertEquals(want, got, "a file per named parameter, by its PyTorch name");
        assertTrue(got.contains("features.1.weight.npy"), got.toString());
        for (String f : want) {
            double[] ours = Npy.read(tmp.resolve("out/grad").resolve(f)).toDoubleArray();
            double[] ref = Npy.read(step.resolve("float64/grad").resolve(f)).toDoubleArray();
            double d = 0;
            double n = 0;
            for (int i = 0; i < ref.length; i++) {
                d += (ours[i] - ref[i]) * (ours[i] - ref[i]);
                n += ref[i] * ref[i];
            }
            assertTrue(Math.sqrt(d) <= 1e-5 * Math.sqrt(n), f + ": " + Math.sqrt(d / n));
        }
        assertTrue(Files.exists(tmp.resolve("out/value/features.0.npy")));
    }

    @Test
    void diffNamesNoDivergenceOnAFaithfulCapture() {
        Cli.Result r = Cli.run("diff", STEPS.resolve("lstm").toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("no divergence: all "), r.out());
        assertTrue(r.out().contains("gradient  lstm.weight_hh_l0"), r.out());
    }

    @Test
    void diffNamesThePlantedMismatchFirst(@TempDir Path tmp) throws IOException {
        // PyTorch's side changed here (StepFolderTest changes a weight in model.onnx): one element of qkv's output
        Path step = io.gradscope.app.service.StepFixtures.withTorchValueChanged("transformer", "layers.0.attn.qkv", tmp.resolve("step"));
        Cli.Result r = Cli.run("diff", step.toString());
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("first divergence: the output of layers.0.attn.qkv at node model_layers_0_attn_qkv"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("value     layers.0.ln1 ") && l.endsWith("ok")), r.out());
    }

    @Test
    void aFolderThatIsNotAStepIsOneLine(@TempDir Path tmp) throws IOException {
        Files.writeString(tmp.resolve("manifest.json"), "{\"format\": \"other 2\"}");
        for (String cmd : new String[] {"run", "diff"}) {
            Cli.Result r = Cli.run(cmd, tmp.toString());
            assertEquals(2, r.status(), cmd);
            assertEquals("error: " + tmp.resolve("manifest.json") + ": not a step manifest: its format is 'other 2', not 'gradscope-step 1'",
                    r.err().strip(), cmd);
        }
        Cli.Result r = Cli.run("diff", STEPS.resolve("cnn").toString(), "--a", "dtype=float64");
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("error: --a and --b compare two runs"), r.err());
    }
}
