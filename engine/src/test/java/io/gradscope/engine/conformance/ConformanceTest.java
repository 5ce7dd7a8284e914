package io.gradscope.engine.conformance;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.run.Npy;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The shared conformance cases (PyTorch float64), each program written out with the engine's Java
 * API: every named value, every gradient and the objective within rtol 1e-6, atol 1e-8.
 */
class ConformanceTest {

    /** A case: which leaves need gradients, and the program as Java building named values. */
    private record Case(Set<String> params, Function<Map<String, Tensor>, Tensor> program) {
    }

    private static final Map<String, Case> CASES = new LinkedHashMap<>();

    static {
        CASES.put("attention", new Case(Set.of("q", "k", "v"), v -> {
            v.put("o", Ops.attention(v.get("q"), v.get("k"), v.get("v"), false));
            return put(v, "obj", Ops.sum(Ops.mul(v.get("o"), v.get("o"))));
        }));
        CASES.put("broadcast", new Case(Set.of("a", "b", "c"), v -> {
            v.put("d", Ops.add(Ops.mul(v.get("a"), v.get("b")), v.get("c")));
            return put(v, "obj", Ops.sub(Ops.sum(Ops.mul(v.get("d"), v.get("d"))), Ops.mean(v.get("a"))));
        }));
        CASES.put("layernorm", new Case(Set.of("x", "g", "b"), v -> {
            v.put("y", Ops.layerNorm(v.get("x"), v.get("g"), v.get("b"), 1e-5));
            return put(v, "obj", Ops.sum(Ops.mul(Ops.mul(v.get("y"), v.get("y")), v.get("x"))));
        }));
        CASES.put("linear_relu", new Case(Set.of("W", "b"), v -> {
            v.put("y", Ops.relu(Ops.add(Ops.matmul(v.get("x"), v.get("W")), v.get("b"))));
            return put(v, "obj", Ops.sum(v.get("y")));
        }));
        CASES.put("mlp_checkpoint", new Case(Set.of("W1", "W2", "W3"), v -> {
            v.put("h1", Ops.tanh(Ops.matmul(v.get("x"), v.get("W1"))));
            v.put("h2", Ops.add(Ops.unary(io.gradscope.engine.ops.OpSpecs.GELU_TANH, Ops.matmul(v.get("h1"), v.get("W2"))), v.get("h1")));
            v.put("out", Ops.matmul(v.get("h2"), v.get("W3")));
            return put(v, "loss", Ops.mse(v.get("out"), v.get("t")));
        }));
        CASES.put("reductions", new Case(Set.of("x"), v -> {
            Tensor x = v.get("x");
            v.put("a", Ops.sum(x, new int[] {1}, false));
            v.put("m", Ops.mean(x, new int[] {0, 2}, true));
            v.put("z", Ops.amax(x, new int[] {2}, false));
            v.put("l", Ops.logsumexp(x, new int[] {0}, false));
            Tensor obj = Ops.add(Ops.add(Ops.add(Ops.sum(Ops.mul(v.get("a"), v.get("a"))), Ops.sum(Ops.mul(v.get("m"), x))),
                    Ops.sum(v.get("z"))), Ops.sum(v.get("l")));
            return put(v, "obj", obj);
        }));
        CASES.put("softmax_ce", new Case(Set.of("W"), v -> {
            v.put("logits", Ops.matmul(v.get("x"), v.get("W")));
            v.put("p", Ops.softmax(v.get("logits"), -1));
            return put(v, "loss", Ops.add(Ops.crossEntropy(v.get("logits"), v.get("y")),
                    Ops.mean(Ops.mul(v.get("p"), v.get("p")))));
        }));
        CASES.put("views", new Case(Set.of("x"), v -> {
            Tensor x = v.get("x");
            v.put("t", Ops.transpose(x));
            v.put("r", Ops.reshape(v.get("t"), 2, 6));
            v.put("s", Ops.slice(v.get("r"), 1, 1, 4));
            return put(v, "obj", Ops.add(Ops.sum(Ops.mul(v.get("s"), v.get("s"))), Ops.sum(Ops.matmul(Ops.permute(x, 1, 0), x))));
        }));
    }

    private static Tensor put(Map<String, Tensor> v, String name, Tensor t) {
        v.put(name, t);
        return t;
    }

    static Stream<Arguments> cases() throws URISyntaxException {
        Path root = Path.of(ConformanceTest.class.getResource("/conformance").toURI());
        return CASES.keySet().stream().map(name -> Arguments.of(name, root.resolve(name)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void matchesPyTorch(String name, Path dir) throws Exception {
        Case c = CASES.get(name);
        Map<String, Tensor> values = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(dir.resolve("in"))) {
            for (Path f : files.sorted().toList()) {
                String leaf = f.getFileName().toString().replace(".npy", "");
                Tensor t = Npy.readAnyOrder(f);
                if (t.dtype() != DType.INT64 && c.params().contains(leaf)) {
                    t.setRequiresGrad(true);
                }
                values.put(leaf, t);
            }
        }
        Tensor objective = c.program().apply(values);
        Backward.run(objective);
        assertClose(Npy.readAnyOrder(dir.resolve("ref/objective.npy")), objective, 1e-6, 1e-8, name + ": objective");
        int checked = 0;
        try (Stream<Path> files = Files.list(dir.resolve("ref/value"))) {
            for (Path f : files.toList()) {
                String v = f.getFileName().toString().replace(".npy", "");
                assertTrue(values.containsKey(v), name + ": no value named " + v);
                assertClose(Npy.readAnyOrder(f), values.get(v).to(DType.FLOAT64), 1e-6, 1e-8, name + ": value " + v);
                checked++;
            }
        }
        try (Stream<Path> files = Files.list(dir.resolve("ref/grad"))) {
            for (Path f : files.toList()) {
                String v = f.getFileName().toString().replace(".npy", "");
                assertClose(Npy.readAnyOrder(f), values.get(v).grad(), 1e-6, 1e-8, name + ": gradient of " + v);
                checked++;
            }
        }
        assertTrue(checked >= 3, name + ": only " + checked + " reference files");
        assertEquals(c.params().size(), Files.list(dir.resolve("ref/grad")).count(), name + ": gradients in the reference");
    }
}
