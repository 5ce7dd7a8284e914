package io.gradscope.engine.forward;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.run.Directional;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Forward mode and Hessian-vector products on every conformance case, through the programs
 * themselves: H·v by both methods against PyTorch's torch.autograd.functional.hvp
 * (gen_hvp.py), and the objective's JVP against ⟨∇, v⟩ from the reverse pass.
 */
class ProgramHvpTest {
    static Stream<Arguments> leaves() throws URISyntaxException, IOException {
        Path root = Path.of(ProgramHvpTest.class.getResource("/conformance").toURI());
        List<Arguments> out = new java.util.ArrayList<>();
        try (Stream<Path> cases = Files.list(root)) {
            for (Path c : cases.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> hv = Files.list(c.resolve("ref/hvp"))) {
                    for (Path f : hv.filter(p -> p.toString().endsWith(".hvp.npy")).sorted().toList()) {
                        String leaf = f.getFileName().toString().replace(".hvp.npy", "");
                        out.add(Arguments.of(c.getFileName() + "/" + leaf, c, leaf));
                    }
                }
            }
        }
        return out.stream();
    }

    static RunOptions options(Path dir) throws IOException {
        Map<String, Tensor> inputs = new HashMap<>();
        try (Stream<Path> files = Files.list(dir.resolve("in"))) {
            for (Path f : files.toList()) {
                inputs.put(f.getFileName().toString().replace(".npy", ""), Npy.readAnyOrder(f));
            }
        }
        return new RunOptions(DType.FLOAT64, 0, inputs);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("leaves")
    void hvpMatchesPyTorchBothWays(String name, Path dir, String leaf) throws IOException {
        Program p = Program.load(dir.resolve("program.grad"));
        Tensor v = Npy.readAnyOrder(dir.resolve("ref/hvp/" + leaf + ".vector.npy"));
        Tensor expected = Npy.readAnyOrder(dir.resolve("ref/hvp/" + leaf + ".hvp.npy"));
        Tensor fwdRev = Directional.hvp(p, options(dir), leaf, v, Hvp.Method.FORWARD_OVER_REVERSE);
        Tensor revRev = Directional.hvp(p, options(dir), leaf, v, Hvp.Method.REVERSE_OVER_REVERSE);
        assertClose(expected, fwdRev, 1e-6, 1e-8, name + ": forward-over-reverse H·v");
        assertClose(expected, revRev, 1e-6, 1e-8, name + ": reverse-over-reverse H·v");
        assertClose(fwdRev, revRev, 1e-10, 1e-12, name + ": the two methods");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("leaves")
    void objectiveJvpEqualsGradientDotTangent(String name, Path dir, String leaf) throws IOException {
        Program p = Program.load(dir.resolve("program.grad"));
        Tensor v = Npy.readAnyOrder(dir.resolve("ref/hvp/" + leaf + ".vector.npy"));
        Directional.JvpResult r = Directional.jvp(p, options(dir), leaf, v);
        ProgramRun run = p.run(options(dir));
        double[] g = run.gradient(leaf).toDoubleArray();
        double[] vv = v.toDoubleArray();
        double dot = 0;
        for (int i = 0; i < g.length; i++) {
            dot += g[i] * vv[i];
        }
        assertEquals(0, r.jvp().rank(), "the objective's JVP is 0-d");
        assertClose(new double[] {dot}, r.jvp().toDoubleArray(), 1e-10, 1e-12, name + ": JVP of the objective");
        assertClose(run.objective().toDoubleArray(), r.objective().toDoubleArray(), 0, 0, name + ": the same forward");
    }
}
