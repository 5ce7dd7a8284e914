package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Npy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gradscope jvp} and {@code gradscope hvp} on the conformance cases: the objective's JVP
 * equals ⟨gradient, tangent⟩ from {@code gradscope run}, every named value gets a tangent, H·v
 * equals PyTorch's by both methods, and mistakes are one line with exit status 2.
 */
class DerivativeCommandsTest {
    static final Path CASES = RunConformanceTest.CASES;

    private static List<String> withInputs(Path dir, String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of(args));
        try (Stream<Path> ins = Files.list(dir.resolve("in"))) {
            for (Path f : ins.sorted().toList()) {
                all.add("--input");
                all.add(f.getFileName().toString().replace(".npy", "") + "=" + f);
            }
        }
        return all;
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    @Test
    void jvpOfTheObjectiveIsGradientDotTangent(@TempDir Path tmp) throws IOException {
        Path dir = CASES.resolve("layernorm");
        Path v = dir.resolve("ref/hvp/x.vector.npy");
        String program = dir.resolve("program.grad").toString();
        Cli.Result j = Cli.run(withInputs(dir, "jvp", program, "--wrt", "x", "--tangent", v.toString(), "--dtype", "float64",
                "--out", tmp.resolve("j").toString()).toArray(String[]::new));
        assertEquals(0, j.status(), j.err());
        Cli.Result r = Cli.run(withInputs(dir, "run", program, "--dtype", "float64", "--out", tmp.resolve("r").toString())
                .toArray(String[]::new));
        assertEquals(0, r.status(), r.err());
        double expected = dot(Npy.read(tmp.resolve("r/grad/x.npy")).toDoubleArray(), Npy.read(v).toDoubleArray());
        double printed = Double.parseDouble(j.out().strip());
        assertEquals(expected, printed, 1e-10 * Math.max(1, Math.abs(expected)));
        assertEquals(expected, Npy.read(tmp.resolve("j/jvp.npy")).item(), 1e-10 * Math.max(1, Math.abs(expected)));
        for (String name : List.of("x", "g", "b", "y", "obj")) {
            assertTrue(Files.exists(tmp.resolve("j/tangent/" + name + ".npy")), "tangent of " + name);
        }
        assertEquals(0, Npy.read(tmp.resolve("j/tangent/g.npy")).toDoubleArray()[0], 0.0, "g is held fixed");
    }

    @Test
    void hvpMatchesPyTorchByBothMethods(@TempDir Path tmp) throws IOException {
        for (String c : List.of("softmax_ce", "mlp_checkpoint")) {
            Path dir = CASES.resolve(c);
            String leaf = c.equals("softmax_ce") ? "W" : "W2";
            double[] expected = Npy.read(dir.resolve("ref/hvp/" + leaf + ".hvp.npy")).toDoubleArray();
            for (String method : List.of("fwd-rev", "rev-rev")) {
                Path out = tmp.resolve(c + method);
                Cli.Result h = Cli.run(withInputs(dir, "hvp", dir.resolve("program.grad").toString(), "--wrt", leaf, "--vector",
                        dir.resolve("ref/hvp/" + leaf + ".vector.npy").toString(), "--method", method, "--dtype", "float64",
                        "--out", out.toString()).toArray(String[]::new));
                assertEquals(0, h.status(), h.err());
                double[] got = Npy.read(out.resolve("hvp.npy")).toDoubleArray();
                assertEquals(expected.length, got.length);
                for (int k = 0; k < got.length; k++) {
                    assertEquals(expected[k], got[k], 1e-8 + 1e-6 * Math.abs(expected[k]), c + " " + method + " element " + k);
                }
            }
        }
    }

    @Test
    void aTangentThatIsNotFiniteIsAPositionedWarning(@TempDir Path tmp) throws IOException {
        // sqrt at 0 has a finite value and an infinite derivative: the tangent of s is born +Inf.
        Path program = tmp.resolve("edge.grad");
        Files.writeString(program, "a = param(3, init=\"zeros\")\nb = a * 2\ns = sqrt(b)\nL = sum(s)\n");
        Cli.Result r = Cli.run("jvp", program.toString(), "--wrt", "a");
        assertEquals(0, r.status(), r.err());
        assertEquals(program + ":3:1: warning: the tangent of 's' holds 3 +Inf (its value is finite); the directional "
                + "derivative is not finite", r.err().strip());
        Cli.Result fine = Cli.run("jvp", "../assets/examples/mlp.grad", "--wrt", "W1");
        assertEquals("", fine.err().strip());
    }

    @Test
    void mistakesAreOneLineWithStatusTwo() {
        String mlp = "../assets/examples/mlp.grad";
        String[][] cases = {
            {"jvp", mlp, "--wrt", "W9"},
            {"jvp", mlp, "--wrt", "y"},
            {"jvp", mlp, "--wrt", "W1", "--tangent", "onehot:99999"},
            {"jvp", mlp, "--wrt", "W1", "--tangent", "sideways"},
            {"jvp", mlp, "--wrt", "W1", "--tangent", "nothere.npy"},
            {"hvp", mlp, "--wrt", "x"},
            {"hvp", mlp, "--wrt", "W1", "--method", "sideways"},
            {"hvp", mlp},
            {"jvp", mlp, "--wrt", "h"},
        };
        String[] expect = {"--wrt W9: no leaf named 'W9' (did you mean 'W1'?)", "labels leaf", "outside the leaf's 1280 elements",
            "--tangent must be ones, random, onehot:I or a .npy file", "--tangent", "declare it input(..., grad=True)",
            "--method must be fwd-rev or rev-rev", "--wrt", "--wrt h: 'h' is computed (line 12), not a leaf: a tangent or vector "
            + "goes on a leaf; the leaves are x, y, W1, b1, W2, b2"};
        for (int i = 0; i < cases.length; i++) {
            Cli.Result r = Cli.run(cases[i]);
            assertEquals(2, r.status(), String.join(" ", cases[i]) + ": " + r.err());
            assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
            assertTrue(r.err().contains(expect[i]), String.join(" ", cases[i]) + ": " + r.err());
        }
    }
}
