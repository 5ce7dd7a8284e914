package io.gradscope.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.check.GradCheck;
import io.gradscope.engine.lang.OpenHint;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every example in assets/examples runs, and its gradients agree with central differences. */
class ExamplesTest {
    static final Path EXAMPLES = Path.of("../assets/examples");

    static Stream<Path> examples() throws IOException {
        try (Stream<Path> all = Files.walk(EXAMPLES, 2)) {
            return all.filter(p -> p.toString().endsWith(".grad")).sorted().toList().stream();
        }
    }

    @Test
    void theTeachingExamplesAreAllThere() throws IOException {
        List<String> names = examples().map(p -> p.getFileName().toString()).toList();
        for (String n : List.of("backprop_chain.grad", "mlp.grad", "softmax.grad", "layernorm.grad", "rmsnorm.grad",
                "causal_attention.grad", "transformer_block.grad", "residual_checkpoint.grad")) {
            assertTrue(names.contains(n), "missing example " + n);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void gradientsAgreeWithCentralDifferences(Path file) {
        Program p = Program.load(file);
        ProgramRun run = p.run(new RunOptions(DType.FLOAT64, 1, Map.of()));
        Map<String, Tensor> fixed = new HashMap<>();
        run.leaves().forEach(l -> fixed.put(l.name(), run.values().get(l.name())));
        Random r = new Random(5);
        int checked = 0;
        for (Leaf l : run.leaves()) {
            if (!l.grad()) {
                continue;
            }
            double[] analytic = run.gradient(l.name()).toDoubleArray();
            double[] base = run.values().get(l.name()).toDoubleArray();
            for (int k = 0; k < Math.min(6, base.length); k++) {
                int j = r.nextInt(base.length);
                double[] d = base.clone();
                Map<String, Tensor> in = new HashMap<>(fixed);
                d[j] = base[j] + GradCheck.EPS;
                in.put(l.name(), Tensor.of(d, l.shape()));
                double plus = p.forward(new RunOptions(DType.FLOAT64, 1, in)).item();
                d[j] = base[j] - GradCheck.EPS;
                in.put(l.name(), Tensor.of(d, l.shape()));
                double minus = p.forward(new RunOptions(DType.FLOAT64, 1, in)).item();
                double numeric = (plus - minus) / (2 * GradCheck.EPS);
                assertTrue(Math.abs(numeric - analytic[j]) <= GradCheck.ATOL + GradCheck.RTOL * Math.abs(numeric),
                        file + " " + l.name() + "[" + j + "]: analytic " + analytic[j] + ", numeric " + numeric);
                checked++;
            }
        }
        assertTrue(checked > 0, "no gradient checked in " + file);
    }

    @Test
    void groupsAndCheckpointSegmentsAreRecorded() {
        ProgramRun t = Program.load(EXAMPLES.resolve("transformer_block.grad")).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        assertEquals(List.of("attention", "mlp"), t.groups());
        assertTrue(io.gradscope.engine.trace.TraceGraph.of(t.trace()).vertices().stream()
                .anyMatch(v -> v.groups().equals(List.of("mlp"))));
        ProgramRun c = Program.load(EXAMPLES.resolve("residual_checkpoint.grad")).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        assertEquals(List.of(List.of("h1", "h2"), List.of("h3", "h4")), c.checkpointSegments());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void courseExamplesSayHowTheyOpen(Path file) throws IOException {
        if (!file.getParent().getFileName().toString().equals("course")) {
            return;
        }
        String source = Files.readString(file);
        OpenHint hint = OpenHint.of(source);
        assertTrue(hint != null, file + " has no '# open:' line");
        assertTrue(OpenHint.VIEWS.contains(hint.view()), file + ": view " + hint.view());
        Program p = Program.load(file);
        List<String> leaves = p.check(DType.FLOAT64).stream().map(Leaf::name).toList();
        String wrt = hint.options().containsKey("wrt") ? hint.options().get("wrt")
                : hint.options().containsKey("tangent") ? hint.options().get("tangent").split(":")[0] : null;
        if (!hint.view().equals("backward") && !hint.view().equals("check")) {
            assertTrue(leaves.contains(wrt), file + ": the hint names '" + wrt + "', not a leaf of " + leaves);
        }
    }

    @Test
    void theCourseHasItsTenSteps() throws IOException {
        try (Stream<Path> course = Files.list(EXAMPLES.resolve("course"))) {
            assertEquals(10, course.filter(p -> p.toString().endsWith(".grad")).count());
        }
        assertEquals(new OpenHint("forward", Map.of("tangent", "x:ones")), OpenHint.of("# a\n\n# open: forward tangent=x:ones\nx = param()\n"));
        assertEquals(null, OpenHint.of("x = param()\n# open: forward\n"));
    }
}
