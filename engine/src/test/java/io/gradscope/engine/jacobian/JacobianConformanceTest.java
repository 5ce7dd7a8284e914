package io.gradscope.engine.jacobian;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Npy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Jacobians of the conformance programs against PyTorch's torch.autograd.functional.jacobian and
 * hessian (gen_jacobians.py): of every named value with respect to every param and of some named
 * values with respect to others; dense by rows (VJPs) and by columns (JVPs), and compressed with
 * column and row colorings of the detected patterns, global and local; Hessians by star coloring.
 */
class JacobianConformanceTest {
    private static final double RTOL = 1e-9;
    private static final double ATOL = 1e-12;

    static Stream<Arguments> references() throws URISyntaxException, IOException {
        Path refs = Path.of(JacobianConformanceTest.class.getResource("/jacobian").toURI());
        Path cases = Path.of(JacobianConformanceTest.class.getResource("/conformance").toURI());
        List<Arguments> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(refs)) {
            for (Path d : dirs.sorted().toList()) {
                try (Stream<Path> files = Files.list(d)) {
                    for (Path f : files.sorted().toList()) {
                        String[] parts = f.getFileName().toString().replace(".npy", "").split("\\.");
                        out.add(Arguments.of(d.getFileName() + ": " + parts[0] + " wrt " + parts[1],
                                cases.resolve(d.getFileName().toString()), parts[0], parts[1], f));
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
    @MethodSource("references")
    void matchesPyTorch(String name, Path dir, String of, String wrt, Path ref) throws IOException {
        Program p = Program.load(dir.resolve("program.grad"));
        double[] expected = Npy.readAnyOrder(ref).toDoubleArray();
        if (of.equals("hessian")) {
            hessian(name, p, dir, wrt, expected);
            return;
        }
        GraphJacobian j = ProgramJacobians.of(p, options(dir), of, wrt);
        assertEquals(expected.length, (long) j.rows() * j.cols(), name + ": size");
        assertClose(expected, Jacobians.denseByRows(j).toDense(), RTOL, ATOL, name + ": by rows (VJPs)");
        assertClose(expected, Jacobians.denseByColumns(j).toDense(), RTOL, ATOL, name + ": by columns (JVPs)");
        assertEquals(j.rows(), j.vjps());
        assertEquals(j.cols(), j.jvps());
        Pattern reference = Pattern.nonzeros(expected, j.rows(), j.cols());
        for (Sparsity s : Sparsity.values()) {
            Pattern pattern = j.pattern(s);
            assertTrue(reference.subsetOf(pattern), name + ": the " + s.flag() + " pattern misses a nonzero");
            for (Coloring.Kind kind : new Coloring.Kind[] {Coloring.Kind.COLUMN, Coloring.Kind.ROW}) {
                Coloring c = Colorings.color(pattern, kind, VertexOrder.SMALLEST_LAST);
                int before = kind == Coloring.Kind.COLUMN ? j.jvps() : j.vjps();
                SparseMatrix compressed = Jacobians.compressed(j, pattern, c);
                assertEquals(c.count(), (kind == Coloring.Kind.COLUMN ? j.jvps() : j.vjps()) - before, name + ": products");
                assertClose(expected, compressed.toDense(), RTOL, ATOL, name + ": compressed, " + s.flag() + " " + c);
            }
        }
    }

    private static void hessian(String name, Program p, Path dir, String wrt, double[] expected) throws IOException {
        GraphJacobian h = ProgramJacobians.hessian(p, options(dir), lastName(dir), wrt);
        assertClose(expected, Jacobians.denseByColumns(h).toDense(), RTOL, ATOL, name + ": by HVPs (forward-over-reverse)");
        assertClose(expected, Jacobians.denseByRows(h).toDense(), RTOL, ATOL, name + ": by reverse-over-reverse");
        Pattern reference = Pattern.nonzeros(expected, h.rows(), h.cols());
        for (Sparsity s : Sparsity.values()) {
            Pattern pattern = Hessians.pattern(h, s);
            assertTrue(pattern.isSymmetric());
            assertTrue(reference.subsetOf(pattern), name + ": the " + s.flag() + " Hessian pattern misses a nonzero");
            Coloring c = Colorings.color(pattern, Coloring.Kind.STAR, VertexOrder.SMALLEST_LAST);
            assertClose(expected, Jacobians.compressed(h, pattern, c).toDense(), RTOL, ATOL, name + ": star, " + s.flag() + " " + c);
        }
    }

    /** The objective's name: the last statement's. */
    static String lastName(Path dir) throws IOException {
        List<String> lines = Files.readAllLines(dir.resolve("program.grad"));
        String last = lines.stream().filter(l -> l.contains("=")).reduce((a, b) -> b).orElseThrow();
        return last.substring(0, last.indexOf('=')).strip();
    }
}
