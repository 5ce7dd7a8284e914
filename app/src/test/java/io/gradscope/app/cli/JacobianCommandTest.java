package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gradscope.engine.jacobian.Coloring;
import io.gradscope.engine.jacobian.Colorings;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.sparse.MatrixMarket;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gradscope jacobian} and {@code gradscope color}: the files against PyTorch's Jacobians
 * (engine/src/test/resources/jacobian, from gen_jacobians.py) and against each other, the summary's
 * numbers, and mistakes as one line with exit status 2.
 */
class JacobianCommandTest {
    static final Path REFS = Path.of("../engine/src/test/resources/jacobian");

    @TempDir
    Path tmp;

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

    private Cli.Result jacobian(String caseName, String... args) throws IOException {
        Path dir = RunConformanceTest.CASES.resolve(caseName);
        List<String> all = withInputs(dir, "jacobian", dir.resolve("program.grad").toString());
        all.addAll(List.of(args));
        return Cli.run(all.toArray(String[]::new));
    }

    private static void assertClose(double[] expected, double[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-9 * Math.max(1, Math.abs(expected[i])), what + " at " + i);
        }
    }

    @Test
    void compressedJacobianEqualsPyTorchAndTheFilesAgree() throws IOException {
        for (String[] c : new String[][] {{"views", "s", "x"}, {"reductions", "z", "x"}, {"softmax_ce", "p", "W"},
            {"mlp_checkpoint", "out", "h1"}, {"layernorm", "y", "g"}}) {
            Path out = tmp.resolve(c[0] + "-" + c[1]);
            Cli.Result r = jacobian(c[0], "--of", c[1], "--wrt", c[2], "--out", out.toString());
            assertEquals(0, r.status(), r.err());
            Tensor expected = Npy.read(REFS.resolve(c[0]).resolve(c[1] + "." + c[2] + ".npy"));
            Tensor dense = Npy.read(out.resolve("jacobian.npy"));
            assertArrayEquals(expected.shape(), dense.shape(), c[0] + " " + c[1]);
            assertClose(expected.toDoubleArray(), dense.toDoubleArray(), c[0] + " " + c[1] + ": jacobian.npy");
            assertClose(dense.toDoubleArray(), MatrixMarket.read(out.resolve("jacobian.mtx")).matrix().toDense(),
                    "jacobian.mtx holds the same values");
            Pattern pattern = MatrixMarket.read(out.resolve("pattern.mtx")).pattern();
            assertTrue(Pattern.nonzeros(expected.toDoubleArray(), expected.dim(0), expected.dim(1)).subsetOf(pattern));
            JsonNode s = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
            Coloring.Kind kind = Coloring.Kind.byFlag(s.get("coloring").asText());
            double[] colors = Npy.read(out.resolve("colors.npy")).toDoubleArray();
            int[] ints = new int[colors.length];
            for (int i = 0; i < ints.length; i++) {
                ints[i] = (int) colors[i];
            }
            Coloring coloring = new Coloring(kind, ints, s.get("colors").asInt(), "file");
            assertTrue(Colorings.isValid(pattern, coloring), c[0] + ": colors.npy is a valid " + kind.flag() + " coloring");
            assertEquals(s.get("colors").asInt(), s.get(kind == Coloring.Kind.ROW ? "vjps" : "jvps").asInt(), "one product per color");
            assertEquals(pattern.nnz(), s.get("nonzeros").asInt());
            assertTrue(s.get("colors").asInt() >= s.get("lower_bound").asInt());
            assertTrue(r.out().contains(s.get("colors").asInt() + " color"), r.out());
        }
    }

    @Test
    void denseRowsAndColumnsAndTheHessianByStarColoring() throws IOException {
        Path rows = tmp.resolve("rows");
        Path cols = tmp.resolve("cols");
        assertEquals(0, jacobian("attention", "--of", "o", "--wrt", "k", "--dense", "--out", rows.toString()).status());
        assertEquals(0, jacobian("attention", "--of", "o", "--wrt", "k", "--dense", "--coloring", "column", "--out",
                cols.toString()).status());
        double[] expected = Npy.read(REFS.resolve("attention/o.k.npy")).toDoubleArray();
        assertClose(expected, Npy.read(rows.resolve("jacobian.npy")).toDoubleArray(), "dense by rows");
        assertClose(expected, Npy.read(cols.resolve("jacobian.npy")).toDoubleArray(), "dense by columns");
        JsonNode s = new ObjectMapper().readTree(rows.resolve("summary.json").toFile());
        assertEquals(12, s.get("vjps").asInt());
        Path h = tmp.resolve("h");
        Cli.Result r = jacobian("layernorm", "--of", "obj", "--wrt", "x", "--hessian", "--out", h.toString());
        assertEquals(0, r.status(), r.err());
        assertClose(Npy.read(REFS.resolve("layernorm/hessian.x.npy")).toDoubleArray(),
                Npy.read(h.resolve("jacobian.npy")).toDoubleArray(), "Hessian by star coloring");
        JsonNode hs = new ObjectMapper().readTree(h.resolve("summary.json").toFile());
        assertEquals("star", hs.get("coloring").asText());
        assertEquals(hs.get("colors").asInt(), hs.get("jvps").asInt(), "one HVP per color");
        assertTrue(MatrixMarket.read(h.resolve("pattern.mtx")).pattern().isSymmetric());
    }

    @Test
    void colorCommandPrintsJsonAndReachesTheOptimumOnTheLaplacianWithRecoloring() throws IOException {
        int k = 20;
        Pattern.Builder b = new Pattern.Builder(k * k, k * k);
        for (int x = 0; x < k; x++) {
            for (int y = 0; y < k; y++) {
                int v = x * k + y;
                for (int w : new int[] {v, x > 0 ? v - k : -1, x < k - 1 ? v + k : -1, y > 0 ? v - 1 : -1, y < k - 1 ? v + 1 : -1}) {
                    if (w >= 0) {
                        b.add(w);
                    }
                }
                b.endRow();
            }
        }
        Path f = tmp.resolve("laplacian.mtx");
        MatrixMarket.writePattern(b.build(), f, true);
        Cli.Result plain = Cli.run("color", f.toString(), "--json");
        assertEquals(0, plain.status(), plain.err());
        JsonNode j = new ObjectMapper().readTree(plain.out());
        assertEquals(7, j.get("colors").asInt(), "greedy in natural order, as ColPack and SparseMatrixColorings");
        assertEquals(5, j.get("lower_bound").asInt());
        assertTrue(j.get("valid").asBoolean());
        JsonNode better = new ObjectMapper().readTree(Cli.run("color", f.toString(), "--json", "--recolor", "10").out());
        assertEquals(5, better.get("colors").asInt());
        Path colors = tmp.resolve("c.npy");
        Cli.Result star = Cli.run("color", f.toString(), "--coloring", "star", "--order", "best", "--out", colors.toString());
        assertEquals(0, star.status(), star.err());
        assertTrue(star.out().contains("star coloring (dynamic-largest-first): 5 colors"), star.out());
        assertEquals(400, Npy.read(colors).numel());
    }

    private static void assertOneLineError(Cli.Result r, String expected) {
        assertEquals(2, r.status(), r.err());
        assertEquals(expected, r.err().strip());
        assertEquals("", r.out());
    }

    @Test
    void mistakesAreOneLine() throws IOException {
        Path p = tmp.resolve("m.grad");
        Files.writeString(p, "x = input(2, 3)\nW = param(3, 4)\nh = tanh(x @ W)\nloss = sum(h)\n");
        String prog = p.toString();
        assertOneLineError(Cli.run("jacobian", prog, "--of", "hh", "--wrt", "W"),
                "error: --of hh: the program has no value named 'hh' (did you mean 'h'?)");
        assertOneLineError(Cli.run("jacobian", prog, "--of", "h", "--wrt", "x"),
                "error: --wrt x: 'x' is an input without a gradient: declare it input(..., grad=True)");
        assertOneLineError(Cli.run("jacobian", prog, "--of", "h", "--wrt", "W", "--coloring", "star"),
                "error: --coloring star is for symmetric matrices: use it with --hessian");
        assertOneLineError(Cli.run("jacobian", prog, "--of", "h", "--wrt", "W", "--pattern", "loose"),
                "error: --pattern must be global or local, not 'loose'");
        assertOneLineError(Cli.run("jacobian", prog, "--of", "h", "--wrt", "W", "--dense", "--pattern", "local"),
                "error: --dense evaluates without a pattern; leave out --pattern local");
        assertOneLineError(Cli.run("jacobian", prog, "--of", "h", "--wrt", "W", "--order", "random"),
                "error: --order must be one of natural, largest-first, smallest-last, incidence-degree, "
                        + "dynamic-largest-first or best, not 'random'");
        assertOneLineError(Cli.run("jacobian", prog, "--of", "h", "--wrt", "W", "--hessian"),
                "error: --of h: a Hessian needs a scalar, but 'h' has shape [2, 4]");
        Path bad = tmp.resolve("bad.mtx");
        Files.writeString(bad, "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 3\n");
        assertOneLineError(Cli.run("color", bad.toString()),
                "error: " + bad + ":3: entry (1, 3) is outside the 2 x 2 matrix (indices start at 1)");
        Path rect = tmp.resolve("rect.mtx");
        Files.writeString(rect, "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 3\n");
        assertOneLineError(Cli.run("color", rect.toString(), "--coloring", "star"),
                "error: star coloring needs a symmetric pattern (a Hessian's), but this 2 x 3 pattern is not symmetric; "
                        + "use column or row coloring");
    }

    @Test
    void aValueThatDoesNotDependOnTheOtherIsSaidToHaveAZeroJacobian() {
        Cli.Result r = Cli.run("jacobian", "../assets/examples/transformer_block.grad", "--of", "h", "--wrt", "out");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("note: h does not depend on out (no path leads from it to h): the matrix is zero"), r.out());
        Cli.Result dependent = Cli.run("jacobian", "../assets/examples/transformer_block.grad", "--of", "out", "--wrt", "h");
        assertFalse(dependent.out().contains("does not depend"), dependent.out());
    }
}
