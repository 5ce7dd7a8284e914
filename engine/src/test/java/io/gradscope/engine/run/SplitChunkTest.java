package io.gradscope.engine.run;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code a, b, c = chunk(x, 3)} and {@code split(...)}: values and gradients equal PyTorch's
 * (program/split_chunk.json, made by src/test/python/gen_split_chunk.py), each piece is a slice op
 * named by its name, and the pieces equal, bit for bit, the program that slices by hand.
 */
class SplitChunkTest {

    static List<JsonNode> cases() throws IOException {
        try (InputStream in = SplitChunkTest.class.getResourceAsStream("/program/split_chunk.json")) {
            List<JsonNode> out = new ArrayList<>();
            new JsonMapper().readTree(in).get("cases").forEach(out::add);
            return out;
        }
    }

    private static Tensor tensor(JsonNode a) {
        int[] shape = new int[a.get("shape").size()];
        for (int i = 0; i < shape.length; i++) {
            shape[i] = a.get("shape").get(i).asInt();
        }
        double[] data = new double[a.get("data").size()];
        for (int i = 0; i < data.length; i++) {
            data[i] = a.get("data").get(i).asDouble();
        }
        return Tensor.fromDoubles(DType.FLOAT64, data, shape);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void valuesAndGradientsEqualPyTorchs(JsonNode c) {
        Map<String, Tensor> inputs = new HashMap<>();
        c.get("leaves").fields().forEachRemaining(e -> inputs.put(e.getKey(), tensor(e.getValue())));
        String src = c.get("program").asText();
        ProgramRun run = Program.parse("case.grad", src).run(new RunOptions(DType.FLOAT64, 0, inputs));
        Iterator<Map.Entry<String, JsonNode>> values = c.get("values").fields();
        while (values.hasNext()) {
            Map.Entry<String, JsonNode> e = values.next();
            Tensor want = tensor(e.getValue());
            Tensor got = e.getKey().equals("obj") ? run.objective() : run.values().get(e.getKey());
            assertNotNull(got, e.getKey() + " has no value\n" + src);
            assertArrayEquals(want.shape(), got.shape(), e.getKey() + ": shape\n" + src);
            assertClose(want.toDoubleArray(), got.toDoubleArray(), 1e-12, 1e-12, e.getKey() + ": value\n" + src);
        }
        c.get("grads").fields().forEachRemaining(e -> assertClose(tensor(e.getValue()).toDoubleArray(),
                run.gradient(e.getKey()).toDoubleArray(), 1e-10, 1e-12, "gradient of " + e.getKey() + "\n" + src));
    }

    private static final String BY_NAMES = """
            x = input(5, 7, grad=True)
            W = param(7, 7)
            h = tanh(x @ W)
            %s
            obj = sum(a * a) + sum(exp(b)) * 0.5 + sum(c * c * c)
            """;

    /** The program with the unpacking replaced by the slices it stands for. */
    private static ProgramRun run(String unpack, DType dtype) {
        String src = BY_NAMES.formatted(unpack);
        return Program.parse("case.grad", src).run(new RunOptions(dtype, 3, Map.of()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"float32", "float64"})
    void piecesAndGradientsEqualTheHandSlicedProgramBitForBit(String dt) {
        DType dtype = DType.parse(dt);
        String[][] pairs = {
            {"a, b, c = chunk(h, 3, axis=1)", "a = slice(h, 1, 0, 3)\nb = slice(h, 1, 3, 6)\nc = slice(h, 1, 6, 7)"},
            {"a, b, c = split(h, 3, axis=-1)", "a = slice(h, 1, 0, 3)\nb = slice(h, 1, 3, 6)\nc = slice(h, 1, 6, 7)"},
            {"a, b, c = split(h, (1, 0, 4))", "a = slice(h, 0, 0, 1)\nb = slice(h, 0, 1, 1)\nc = slice(h, 0, 1, 5)"},
            {"a, b, c = chunk(h, 3, axis=0)", "a = slice(h, 0, 0, 2)\nb = slice(h, 0, 2, 4)\nc = slice(h, 0, 4, 5)"},
        };
        for (String[] p : pairs) {
            ProgramRun unpacked = run(p[0], dtype);
            ProgramRun sliced = run(p[1], dtype);
            for (String n : List.of("a", "b", "c", "h")) {
                assertArrayEquals(sliced.values().get(n).toDoubleArray(), unpacked.values().get(n).toDoubleArray(),
                        p[0] + ": " + n);
            }
            assertArrayEquals(sliced.objective().toDoubleArray(), unpacked.objective().toDoubleArray(), p[0]);
            for (String leaf : List.of("x", "W")) {
                assertArrayEquals(sliced.gradient(leaf).toDoubleArray(), unpacked.gradient(leaf).toDoubleArray(),
                        p[0] + ": gradient of " + leaf);
            }
        }
    }

    @Test
    void eachPieceIsASliceNodeNamedByItsName() {
        ProgramRun run = run("a, b, c = chunk(h, 3, axis=1)", DType.FLOAT64);
        for (String n : List.of("a", "b", "c")) {
            Node node = Node.of(run.values().get(n));
            assertNotNull(node, n);
            assertEquals("slice", node.op().name(), n);
            assertEquals(n, node.label(), n);
        }
        Program p = Program.parse("case.grad", BY_NAMES.formatted("a, b, c = chunk(h, 3, axis=1)"));
        assertEquals(List.of("x", "W", "h", "a", "b", "c", "obj"), new ArrayList<>(p.assignedNames().keySet()));
        assertEquals(new Pos(4, 4), p.assignedNames().get("b"));
    }

    @Test
    void aTrailingCommaUnpacksOnePiece() {
        ProgramRun run = Program.parse("case.grad", "x = param(3, 2)\na, = chunk(x, 1, axis=1)\nobj = sum(a)\n")
                .run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        assertArrayEquals(new int[] {3, 2}, run.values().get("a").shape());
        assertFalse(run.values().containsKey(""));
    }

    @Test
    void argumentsByKeywordCutAsPositionalOnes() {
        RunOptions o = new RunOptions(DType.FLOAT64, 5, Map.of());
        ProgramRun kw = Program.parse("case.grad", "x = param(3, 7)\na, b, c = split(x, size=3, axis=1)\n"
                + "d, e = chunk(x, chunks=2)\nobj = sum(a * c) + sum(b) + sum(d * d) + sum(e)\n").run(o);
        ProgramRun pos = Program.parse("case.grad", "x = param(3, 7)\na, b, c = split(x, 3, 1)\n"
                + "d, e = chunk(x, 2, 0)\nobj = sum(a * c) + sum(b) + sum(d * d) + sum(e)\n").run(o);
        for (String n : List.of("a", "b", "c", "d", "e")) {
            assertArrayEquals(pos.values().get(n).shape(), kw.values().get(n).shape(), n);
        }
        assertArrayEquals(new int[] {3, 1}, kw.values().get("c").shape());
        assertArrayEquals(new int[] {1, 7}, kw.values().get("e").shape());
        assertArrayEquals(pos.gradient("x").toDoubleArray(), kw.gradient("x").toDoubleArray());
    }

    @Test
    void anEmptyAxisGivesChunksEmptyPiecesAndOneSplitPiece() {
        // torch.chunk(torch.zeros(0, 3), 3) gives three [0, 3] pieces; torch.split(..., 2) one.
        ProgramRun run = Program.parse("case.grad", "x = param(0, 3)\na, b, c = chunk(x, 3)\nd, = split(x, 2)\n"
                + "obj = sum(a) + sum(b) + sum(c) + sum(d) + sum(x)\n").run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        for (String n : List.of("a", "b", "c", "d")) {
            assertArrayEquals(new int[] {0, 3}, run.values().get(n).shape(), n);
        }
    }

    private static String error(String program) {
        return ErrorCorpusTest.errorOf(program);
    }

    @Test
    void chunkGivingFewerPiecesThanAskedNeedsThatManyNames() {
        // torch.chunk(torch.zeros(5), 4) gives pieces of 2, 2, 1: three, not four.
        assertEquals("case.grad:2:14: error: chunk gives 3 pieces here; 4 names on the left",
                error("x = param(5)\na, b, c, d = chunk(x, 4)\nobj = sum(a)\n"));
        ProgramRun run = Program.parse("case.grad", "x = param(5)\na, b, c = chunk(x, 4)\nobj = sum(a) + sum(c)\n")
                .run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        assertArrayEquals(new int[] {1}, run.values().get("c").shape());
    }

    @Test
    void usingASplitAsOneValueIsAnError() {
        assertEquals("case.grad:2:5: error: split(...) gives 2 pieces here; bind each to a name, e.g. a, b = split(x, 2)",
                error("x = param(4)\ny = split(x, 2)\nobj = sum(y)\n"));
    }
}
