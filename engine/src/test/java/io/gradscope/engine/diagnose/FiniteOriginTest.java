package io.gradscope.engine.diagnose;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Each planted fault of faults/corpus.txt is found at the planted statement, in the right sweep. */
class FiniteOriginTest {
    record Case(String title, FiniteOrigin.Phase phase, String origin, String nanInput, int nanAt, String program) {
        @Override
        public String toString() {
            return title;
        }
    }

    static Stream<Case> cases() throws IOException {
        String text;
        try (InputStream in = FiniteOriginTest.class.getResourceAsStream("/faults/corpus.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Case> out = new ArrayList<>();
        for (String block : text.split("(?m)^### ")) {
            if (block.startsWith("#") || block.isBlank()) {
                continue;
            }
            String[] lines = block.split("\n");
            String[] origin = lines[1].substring("origin: ".length()).split(" ");
            int body = 2;
            String nanInput = null;
            int nanAt = -1;
            if (lines[2].startsWith("input ")) {
                String[] w = lines[2].split(" ");
                nanInput = w[1];
                nanAt = Integer.parseInt(w[3]);
                body = 3;
            }
            out.add(new Case(lines[0], FiniteOrigin.Phase.valueOf(origin[0].toUpperCase()), origin[1], nanInput, nanAt,
                    String.join("\n", java.util.Arrays.copyOfRange(lines, body, lines.length)) + "\n"));
        }
        return out.stream();
    }

    static ProgramRun run(Case c) {
        Program p = Program.parse("case.grad", c.program());
        Map<String, Tensor> inputs = new HashMap<>();
        if (c.nanInput() != null) {
            int[] shape = p.check(DType.FLOAT64).stream().filter(l -> l.name().equals(c.nanInput())).findFirst().orElseThrow()
                    .shape();
            double[] d = new double[(int) io.gradscope.engine.tensor.Shapes.numel(shape)];
            java.util.Arrays.fill(d, 0.5);
            d[c.nanAt()] = Double.NaN;
            inputs.put(c.nanInput(), Tensor.of(d, shape));
        }
        return p.run(new RunOptions(DType.FLOAT64, 0, inputs));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theOriginIsThePlantedStatement(Case c) {
        ProgramRun run = run(c);
        FiniteOrigin.Report r = FiniteOrigin.find(run.trace());
        assertTrue(r.anyBad(), c + ": nothing found");
        FiniteOrigin.Finding f = r.origin();
        assertEquals(c.phase(), f.phase(), c + ": " + f);
        assertEquals(c.origin(), f.title(), c + ": " + f);
        int line = c.program().split("\n").length;
        for (String l : c.program().split("\n")) {
            if (l.startsWith(c.origin() + " = ")) {
                line = java.util.Arrays.asList(c.program().split("\n")).indexOf(l) + 1;
            }
        }
        assertEquals(line, f.source().line(), c + ": the origin's line");
        assertFalse(f.why().isBlank());
        long originId = f.node();
        List<Long> prop = f.phase() == FiniteOrigin.Phase.FORWARD ? r.forwardPropagators() : r.backwardPropagators();
        assertFalse(prop.contains(originId), "the producer is not its own propagator");
        if (!Health.of(run.objective()).finite() && f.phase() == FiniteOrigin.Phase.FORWARD) {
            long objective = run.trace().events().stream().filter(e -> e instanceof io.gradscope.engine.trace.TraceEvent.Objective)
                    .mapToLong(e -> ((io.gradscope.engine.trace.TraceEvent.Objective) e).node()).findFirst().orElseThrow();
            assertTrue(prop.contains(objective), c + ": the objective only carried it on");
            assertTrue(r.forwardPropagators().stream().allMatch(id -> !r.valueHealth().get(id).finite()),
                    "every propagator holds a non-finite value");
        }
    }

    @Test
    void theReasonNamesTheOffendingInput() throws IOException {
        Case log = cases().filter(c -> c.title().equals("log of a negative")).findFirst().orElseThrow();
        FiniteOrigin.Finding f = FiniteOrigin.find(run(log).trace()).origin();
        assertTrue(f.why().startsWith("log gave 4 NaN from finite inputs; b: min −2"), f.why());
        Case div = cases().filter(c -> c.title().equals("division by zero")).findFirst().orElseThrow();
        FiniteOrigin.Finding d = FiniteOrigin.find(run(div).trace()).origin();
        assertTrue(d.why().equals("div gave 3 +Inf from finite inputs; a: min 1, max 1; z: min 0, max 0, 3 zeros"), d.why());
        Case sqrt = cases().filter(c -> c.title().startsWith("sqrt at zero")).findFirst().orElseThrow();
        FiniteOrigin.Finding s = FiniteOrigin.find(run(sqrt).trace()).origin();
        assertTrue(s.why().startsWith("the gradient of sqrt for 'z' is 4 +Inf"), s.why());
    }

    @Test
    void anInfinityThatNeverReachesTheObjectiveOrAGradientIsAbsorbed() {
        // div makes −Inf from finite inputs (−1 / +0); exp turns it into 0, so the objective and the gradients are finite.
        String text = "s = param(2, 3)\nx = input(2, 3)\nneg = -1 / (0 * (x * x))\nL = sum(s + exp(neg))\n";
        FiniteOrigin.Report r = FiniteOrigin.find(Program.parse("mask.grad", text).run(new RunOptions(DType.FLOAT64, 0, Map.of())).trace());
        assertTrue(r.anyBad());
        assertEquals("neg", r.origin().title());
        assertTrue(r.absorbed(), "the −Inf never reaches the objective or a gradient");
        assertFalse(r.harmful());
        // The same −Inf times the parameter reaches the objective: harmful.
        String reaches = text.replace("exp(neg)", "s * neg");
        FiniteOrigin.Report h = FiniteOrigin.find(Program.parse("mask.grad", reaches).run(new RunOptions(DType.FLOAT64, 0, Map.of())).trace());
        assertEquals("neg", h.origin().title());
        assertFalse(h.absorbed());
        assertTrue(h.harmful());
        // Absorbed in the forward pass, but log's backward at 0 gives 0 · Inf = NaN: harmful.
        String backward = "s = param(2, 3)\nx = input(2, 3)\nz = log(0 * (x * x) + 0 * s)\nL = sum(s + exp(z))\n";
        FiniteOrigin.Report b = FiniteOrigin.find(Program.parse("mask.grad", backward).run(new RunOptions(DType.FLOAT64, 0, Map.of())).trace());
        assertTrue(b.anyBad());
        assertFalse(b.absorbed(), "the backward pass is not finite");
    }

    @Test
    void everyPlantedFaultIsHarmful() throws IOException {
        for (Case c : (Iterable<Case>) cases()::iterator) {
            assertTrue(FiniteOrigin.find(run(c).trace()).harmful(), c.title());
        }
    }

    @Test
    void aValueNotRetainedIsNotTakenAsFinite() {
        // log(b) is the producer; without retention its value is a stand-in, which once read as zeros (finite), so
        // the search blamed the next value, c = log(b) * 2, as born "from finite inputs".
        String text = "w = param(4)\nb = w - 5\nl = log(b * b - 30)\nc = l * 2\nL = sum(c * w)\n";
        Program p = Program.parse("dropped.grad", text);
        RunOptions o = new RunOptions(DType.FLOAT64, 0, Map.of());
        FiniteOrigin.Report all = FiniteOrigin.find(run(p, o, io.gradscope.engine.alloc.Retention.ALL).trace());
        assertEquals("l", all.origin().title());
        assertEquals(0, all.notRetained());
        FiniteOrigin.Report none = FiniteOrigin.find(run(p, o, io.gradscope.engine.alloc.Retention.NONE).trace());
        assertTrue(none.notRetained() > 0, "the stand-ins are counted");
        assertTrue(none.anyBad());
        FiniteOrigin.Finding f = none.origin();
        assertFalse(f.why().contains("from finite inputs") && !f.why().contains("not retained"),
                "a finding over a stand-in says the input was not searched: " + f.why());
        assertTrue(none.valueHealth().size() < all.valueHealth().size(), "no health is made up for a stand-in");
    }

    private static ProgramRun run(Program p, RunOptions o, io.gradscope.engine.alloc.Retention r) {
        io.gradscope.engine.recompute.RematPlanner.Planned planned = p.plan(o, io.gradscope.engine.recompute.RematPolicy.SEGMENTS, false);
        return p.run(o, planned, r, (phase, done, total) -> { });
    }

    @Test
    void aHealthyRunHasNoOrigin() {
        ProgramRun run = Program.parse("ok.grad", "a = param(3)\nb = tanh(a)\nL = sum(b)\n")
                .run(new RunOptions(DType.FLOAT64, 0, Map.of()));
        FiniteOrigin.Report r = FiniteOrigin.find(run.trace());
        assertFalse(r.anyBad());
        assertTrue(r.valueHealth().values().stream().allMatch(Health::finite));
        assertTrue(r.gradientHealth().values().stream().allMatch(Health::finite));
    }

    @Test
    void healthCountsEveryKind() {
        Health h = Health.of(new double[] {-1, 0, 0, 2, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY});
        assertEquals(new Health(1, 2, 1, 1, 1, 1), h);
        assertEquals("1 NaN, 1 +Inf, 1 −Inf", h.badText());
    }
}
