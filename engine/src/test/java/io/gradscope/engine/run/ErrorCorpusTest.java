package io.gradscope.engine.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.lang.ProgramException;
import io.gradscope.engine.tensor.DType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The malformed-program corpus (errors/corpus.txt): each program gives exactly its expected message. */
class ErrorCorpusTest {

    record Case(String title, String expected, String program) {
        @Override
        public String toString() {
            return title;
        }
    }

    static List<Case> cases() throws IOException {
        String text;
        try (InputStream in = ErrorCorpusTest.class.getResourceAsStream("/errors/corpus.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Case> out = new ArrayList<>();
        String[] parts = text.split("(?m)^### ");
        for (int i = 1; i < parts.length; i++) {
            String part = parts[i];
            int nl1 = part.indexOf('\n');
            int nl2 = part.indexOf('\n', nl1 + 1);
            out.add(new Case(part.substring(0, nl1), part.substring(nl1 + 1, nl2), part.substring(nl2 + 1)));
        }
        return out;
    }

    /** Parses, checks and runs; returns the error message. */
    static String errorOf(String program) {
        ProgramException e = assertThrows(ProgramException.class, () -> {
            Program p = Program.parse("case.grad", program);
            p.check(DType.FLOAT32);
            p.run(new RunOptions(DType.FLOAT32, 0, Map.of()));
        });
        assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void theCorpusHasAtLeastFortyCases() throws IOException {
        assertTrue(cases().size() >= 40, "cases: " + cases().size());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void givesItsMessageAtItsPosition(Case c) {
        assertEquals("case.grad:" + c.expected(), errorOf(c.program()));
    }

    @Test
    void tenThousandNestedParenthesesAreAnErrorNotAStackOverflow() {
        String program = "x = param(3)\ny = sum(" + "(".repeat(10_000) + "x" + ")".repeat(10_000) + ")\n";
        String msg = errorOf(program);
        assertTrue(msg.startsWith("case.grad:2:") && msg.contains("nested"), msg);
    }

    @Test
    void aOneMegabyteLineWorksOrIsAClearError() {
        String comment = "x = param(3)\n# " + "a".repeat(1 << 20) + "\ny = sum(x)\n";
        ProgramRun run = Program.parse("case.grad", comment).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        assertEquals(run.values().get("x").toDoubleArray().length, 3);
        String longExpr = "x = param(3)\ny = sum(x" + " + x".repeat(1 << 18) + ")\n";
        String msg = errorOf(longExpr);
        assertTrue(msg.startsWith("case.grad:2:") && msg.contains("expression too long"), msg);
    }

    @Test
    void binaryGarbageIsAnErrorAtItsFirstBadByte(@TempDir Path tmp) throws IOException {
        byte[] junk = new byte[4096];
        new Random(7).nextBytes(junk);
        Path f = tmp.resolve("junk.grad");
        Files.write(f, junk);
        ProgramException e = assertThrows(ProgramException.class, () -> Program.load(f).check(DType.FLOAT32));
        assertTrue(e.getMessage().startsWith(f + ":"), e.getMessage());
        Files.write(f, new byte[] {'x', ' ', '=', ' ', 0, 1, 2});
        e = assertThrows(ProgramException.class, () -> Program.load(f).check(DType.FLOAT32));
        assertEquals(f + ":1:5: error: unexpected character '\\x00'", e.getMessage());
    }

    @Test
    void shapeErrorsAreFoundBeforeAnythingRuns() {
        // The huge param comes first: a run would allocate it before reaching the bad matmul.
        String program = "W = param(20000, 20000)\nx = param(3, 4)\ny = sum(x @ x)\n";
        ProgramException e = assertThrows(ProgramException.class, () -> Program.parse("case.grad", program).check(DType.FLOAT32));
        assertEquals("case.grad:3:11: error: '@' needs matching inner dimensions: [3, 4] @ [3, 4] (4 != 3)", e.getMessage());
    }
    // ---- issue 19: bad inputs that escaped as stack traces or said too little ----------------

    @Test
    void threeThousandNestedWithBlocksAreAnErrorNotAStackOverflow() {
        StringBuilder sb = new StringBuilder("x = param(3)\n");
        for (int i = 0; i < 3000; i++) {
            sb.append(" ".repeat(i)).append("with group(\"g").append(i).append("\"):\n");
        }
        sb.append(" ".repeat(3000)).append("y = sum(x)\n");
        assertEquals("case.grad:102:101: error: 'with' blocks nested too deeply (more than 100 levels)", errorOf(sb.toString()));
    }

    @Test
    void oneHundredNestedWithBlocksStillRun() {
        StringBuilder sb = new StringBuilder("x = param(3)\n");
        for (int i = 0; i < 100; i++) {
            sb.append(" ".repeat(i)).append("with group(\"g").append(i).append("\"):\n");
        }
        sb.append(" ".repeat(100)).append("y = sum(x * x)\n");
        ProgramRun run = Program.parse("case.grad", sb.toString()).run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        assertEquals(100, run.groups().size());
    }

    @Test
    void anUnknownNameOfFortyThousandCharactersIsQuickAndOneLine() {
        String name = "a".repeat(40_000);
        long t0 = System.nanoTime();
        String msg = errorOf(name + " = param(3)\nl = sum(" + name + "b)\n");
        assertEquals("case.grad:2:9: error: unknown name '" + name + "b'", msg, "no suggestion past 64 characters");
        assertTrue(System.nanoTime() - t0 < 5e9, "took " + (System.nanoTime() - t0) / 1e9 + " s");
        // Up to 64 characters names still get suggestions.
        String w = "w".repeat(60);
        assertEquals("case.grad:2:9: error: unknown name '" + w + "x' (did you mean '" + w + "'?)",
                errorOf(w + " = param(3)\nl = sum(" + w + "x)\n"));
    }

    @Test
    void aByteOrderMarkIsSkippedAsPythonDoes() {
        ProgramRun run = Program.parse("case.grad", "\uFEFFx = param(3)\nl = sum(x)\n").run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        assertEquals(3, run.values().get("x").numel());
        assertEquals("case.grad:1:5: error: unexpected character '$'", errorOf("\uFEFFx = $\n"), "columns count after the mark");
    }

    @Test
    void aByteOrderMarkInAFileIsSkipped(@TempDir Path tmp) throws IOException {
        Path f = tmp.resolve("bom.grad");
        Files.write(f, new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, 'x', ' ', '=', ' ', 'p', 'a', 'r', 'a', 'm', '(', '2', ')', '\n',
            'l', ' ', '=', ' ', 's', 'u', 'm', '(', 'x', ')', '\n'});
        assertEquals(1, Program.load(f).check(DType.FLOAT32).size());
    }

    @Test
    void labelsThroughAViewWithEnoughClassesStillRun() {
        String program = "z = param(4, 3)\nt = labels(2, 2, classes=3)\nu = reshape(t, 4)\nl = cross_entropy(z, u)\n";
        for (long seed = 0; seed < 5; seed++) {
            ProgramRun run = Program.parse("case.grad", program).run(new RunOptions(DType.FLOAT64, seed, Map.of()));
            assertTrue(run.objective().item() > 0);
        }
    }

    @Test
    void theMemoryCheckCountsTheGradientsOfTheBackwardPass() {
        // A parameter taking 60% of the heap fits, but with its gradient (and the sum's) it does not.
        long heap = Runtime.getRuntime().maxMemory();
        int n = (int) Math.min(Integer.MAX_VALUE - 8, heap * 6 / 10 / 8);
        String program = "x = input(3)\nW = param(" + n + ")\nl = sum(W)\n";
        ProgramException e = assertThrows(ProgramException.class, () -> Program.parse("case.grad", program).check(DType.FLOAT64));
        assertTrue(e.getMessage().startsWith("case.grad:2:5: error: the program needs "), e.getMessage());
        assertTrue(e.getMessage().contains("of their gradients in the backward pass"), e.getMessage());
        assertTrue(e.getMessage().contains("GiB") && !e.getMessage().contains(" GB"), "binary units: " + e.getMessage());
        assertTrue(e.getMessage().contains("more than the Java heap's limit of ") && e.getMessage().contains("--max-memory"),
                "names the limit and how to raise it: " + e.getMessage());
        // Without a gradient (an input) the same size passes the check.
        Program.parse("case.grad", "x = input(" + n + ")\nl = sum(x)\n").check(DType.FLOAT64);
    }

    @Test
    void aShapeErrorAfterAnOversizedTotalIsReportedFirst() {
        long heap = Runtime.getRuntime().maxMemory();
        int n = (int) Math.min(Integer.MAX_VALUE - 8, heap * 6 / 10 / 8);
        String program = "W = param(" + n + ")\nV = param(" + n + ")\nx = param(2, 3)\ny = sum(x @ x)\n";
        ProgramException e = assertThrows(ProgramException.class, () -> Program.parse("case.grad", program).check(DType.FLOAT64));
        assertTrue(e.getMessage().startsWith("case.grad:4:11: error: '@' needs matching inner dimensions"), e.getMessage());
    }
}
