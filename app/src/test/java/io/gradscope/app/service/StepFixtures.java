package io.gradscope.app.service;

import io.gradscope.engine.run.Npy;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The steps gen_steps.py captured (engine/src/test/resources/step/), and copies with a planted mismatch. */
public final class StepFixtures {
    public static final Path STEPS = Path.of("../engine/src/test/resources/step");

    private StepFixtures() {
    }

    /**
     * A copy of step {@code name} in {@code to} whose PyTorch output of {@code module} has one element moved
     * by 0.5 (the engine's StepFolderTest changes a weight in model.onnx instead).
     */
    public static Path withTorchValueChanged(String name, String module, Path to) throws IOException {
        Path from = STEPS.resolve(name);
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
        Path file = to.resolve("torch/value/" + module + ".npy");
        Tensor t = Npy.read(file);
        double[] x = t.toDoubleArray();
        x[7] += 0.5;
        Npy.write(Tensor.fromDoubles(t.dtype(), x, t.shape()), file);
        return to;
    }
}
