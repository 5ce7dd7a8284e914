package io.gradscope.engine.run;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.alloc.Retention;
import io.gradscope.engine.recompute.RematPlanner;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.MemoryCategory;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.NotRetained;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A run that retains fewer values ({@link Retention}) still answers for every vertex: a value and
 * a gradient recomputed on demand ({@link Replay}) equal, bit for bit, those a run retaining
 * everything kept. The leaves' random values come from the seed and are replayed with it.
 */
class ReplayTest {

    static List<Object[]> programs() {
        return List.of(
                new Object[] {"mlp", DType.FLOAT64, """
                        x = input(4, 6)
                        W1 = param(6, 8)
                        W2 = param(8, 3)
                        h = tanh(x @ W1)
                        p = softmax(h @ W2)
                        loss = sum(p * p) + sum(h)
                        """},
                new Object[] {"conv", DType.FLOAT32, """
                        x = input(2, 3, 8, 8)
                        W = param(4, 3, 3, 3)
                        b = param(4)
                        h = conv2d(x, W, b, padding=1)
                        a = relu(h)
                        p = max_pool2d(a, 2)
                        q = reshape(p, 2, 64)
                        loss = mean(q * q)
                        """},
                new Object[] {"layernorm-attention", DType.FLOAT32, """
                        x = input(5, 8)
                        g = param(8, init="ones")
                        c = param(8, init="zeros")
                        Wq = param(8, 8)
                        Wk = param(8, 8)
                        a = layer_norm(x, g, c)
                        att = attention(a @ Wq, a @ Wk, a, causal=True)
                        loss = sum((x + att) * (x + att))
                        """},
                new Object[] {"dropout", DType.FLOAT32, """
                        x = input(6, 10)
                        W = param(10, 12)
                        h = dropout(relu(x @ W), p=0.4, seed=11)
                        loss = sum(h * h)
                        """},
                new Object[] {"checkpoint", DType.FLOAT64, """
                        x = input(3, 4)
                        w = param(4)
                        with checkpoint():
                            a = tanh(x * w)
                            b = a * a
                        with checkpoint():
                            c = exp(b) + a
                        loss = sum(c)
                        """},
                new Object[] {"split-chunk", DType.FLOAT64, """
                        x = input(4, 6)
                        W = param(6, 6)
                        with checkpoint():
                            h = tanh(x @ W)
                            a, b, c = chunk(h, 3, axis=1)
                            q, k = split(h * h, (1, 3))
                        loss = sum(a * b) + sum(exp(c)) + sum(q) + sum(k * k)
                        """});
    }

    private static final RunOptions NO_INPUTS = new RunOptions(DType.FLOAT64, 7, Map.of());

    private static RunOptions options(DType dtype) {
        return new RunOptions(dtype, 7, Map.of());
    }

    private static ProgramRun run(Program p, RunOptions o, Retention r) {
        RematPlanner.Planned planned = p.plan(o, RematPolicy.SEGMENTS, false);
        return p.run(o, planned, r, (phase, done, total) -> { });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("programs")
    void everyValueAndGradientRecomputedOnDemandEqualsTheRetainedOneBitForBit(String name, DType dtype, String src) {
        Program p = Program.parse(name + ".grad", src);
        RunOptions o = options(dtype);
        ProgramRun all = run(p, o, Retention.ALL);
        ProgramRun none = run(p, o, Retention.NONE);
        TraceGraph g = TraceGraph.of(all.trace());
        TraceGraph gn = TraceGraph.of(none.trace());
        assertEquals(g.size(), gn.size());
        Map<Long, TraceEvent.BackwardStep> steps = stepsByNode(all);
        int standIns = 0;
        for (int v = 0; v < g.size(); v++) {
            TraceGraph.Vertex kept = g.vertex(v);
            Tensor shown = gn.vertex(v).value();
            assertFalse(NotRetained.is(kept.value()), "all keeps every value");
            assertArrayEquals(kept.value().shape(), shown.shape(), "a stand-in has its value's shape");
            if (NotRetained.is(shown)) {
                standIns++;
            }
            Replay.Recomputed r = Replay.of(p, o, none, v, true);
            assertBits(kept.value(), r.value(), name + " value of vertex " + v + " (" + kept.title() + ")");
            TraceEvent.BackwardStep s = steps.get(kept.id());
            if (s == null) {
                assertNull(r.upstream(), "the backward pass does not reach " + kept.title());
                continue;
            }
            assertBits(s.upstream(), r.upstream(), name + " upstream gradient of " + kept.title());
            assertEquals(s.contributions().size(), r.contributions().size());
            for (int i = 0; i < s.contributions().size(); i++) {
                assertEquals(s.contributions().get(i).input(), r.contributions().get(i).input());
                assertBits(s.contributions().get(i).gradient(), r.contributions().get(i).gradient(),
                        name + " contribution " + i + " of " + kept.title());
            }
        }
        assertTrue(standIns > 0, "none keeps no intermediate value");
        // What none always keeps: the objective and the leaves' gradients.
        assertFalse(NotRetained.is(gn.vertex(gn.size() - 1).value()));
        assertBits(all.objective(), none.objective(), "objective");
        for (Leaf leaf : all.leaves()) {
            Tensor ga = all.gradient(leaf.name());
            if (ga != null) {
                assertBits(ga, none.gradient(leaf.name()), "gradient of " + leaf.name());
            }
        }
        assertEquals(0, none.timeline().maxOf(MemoryCategory.HELD_FOR_INSPECTION), "none holds nothing for inspection");
    }

    @Test
    void aValueAloneIsRecomputedWithoutItsGradient() {
        Program p = Program.parse("v.grad", "x = input(3)\nw = param(3)\ny = tanh(x * w)\nloss = sum(y * y)\n");
        ProgramRun none = run(p, NO_INPUTS, Retention.NONE);
        ProgramRun all = run(p, NO_INPUTS, Retention.ALL);
        int y = TraceGraph.of(all.trace()).vertices().stream().filter(v -> "y".equals(v.name())).findFirst().orElseThrow().index();
        // The run carries the program it ran, so a replay needs no parse of the text.
        assertSame(p, none.program());
        Replay.Recomputed r = Replay.of(none.program(), NO_INPUTS, none, y, false);
        assertBits(TraceGraph.of(all.trace()).vertex(y).value(), r.value(), "y");
        assertNull(r.upstream());
        assertTrue(r.contributions().isEmpty());
    }

    @Test
    void fitUnderASmallBudgetDropsTheLargestAndStillAnswersEveryVertex() {
        String src = """
                x = input(16, 32)
                W = param(32, 32)
                a = tanh(x @ W)
                s = sum(a, axis=1)
                b = exp(s) * 2
                loss = sum(b * b)
                """;
        Program p = Program.parse("fit.grad", src);
        RunOptions o = options(DType.FLOAT64);
        ProgramRun all = run(p, o, Retention.ALL);
        // 16×32 float64 values are 4 KiB; the row sums 128 bytes: a 1 KiB budget keeps only small ones.
        ProgramRun fit = run(p, o, Retention.fit(1024));
        TraceGraph g = TraceGraph.of(all.trace());
        TraceGraph gf = TraceGraph.of(fit.trace());
        int dropped = 0;
        int kept = 0;
        for (int v = 0; v < g.size(); v++) {
            Tensor shown = gf.vertex(v).value();
            Tensor answer = NotRetained.is(shown) ? Replay.of(p, o, fit, v, false).value() : shown;
            if (shown.numel() * 8 > 1024) {
                assertTrue(NotRetained.is(shown) || g.vertex(v).kind() != TraceGraph.Kind.OP, "over the budget: " + g.vertex(v).title());
            }
            if (NotRetained.is(shown)) {
                dropped++;
            } else if (g.vertex(v).kind() == TraceGraph.Kind.OP) {
                kept++;
            }
            assertBits(g.vertex(v).value(), answer, "vertex " + v + " (" + g.vertex(v).title() + ")");
        }
        assertTrue(dropped > 0, "fit under 1 KiB drops something");
        assertTrue(kept > 1, "fit keeps the small values that fit");
        long held = fit.timeline().maxOf(MemoryCategory.HELD_FOR_INSPECTION);
        assertTrue(held > 0 && held <= 1024, "held for inspection within the budget: " + held);
        assertTrue(fit.memory().dropped() > 0);
        assertEquals(Retention.Kind.FIT, fit.memory().retention().kind());
    }

    private static Map<Long, TraceEvent.BackwardStep> stepsByNode(ProgramRun run) {
        Map<Long, TraceEvent.BackwardStep> out = new HashMap<>();
        for (TraceEvent.BackwardStep s : run.trace().of(TraceEvent.BackwardStep.class)) {
            out.put(s.node(), s);
        }
        return out;
    }

    /** Equal shapes and equal bits, element by element (a float32 widens to a double exactly). */
    static void assertBits(Tensor expected, Tensor actual, String what) {
        assertNotNull(actual, what);
        assertArrayEquals(expected.shape(), actual.shape(), what);
        assertEquals(expected.dtype(), actual.dtype(), what);
        double[] e = expected.toDoubleArray();
        double[] a = actual.toDoubleArray();
        for (int i = 0; i < e.length; i++) {
            if (Double.doubleToRawLongBits(e[i]) != Double.doubleToRawLongBits(a[i])) {
                throw new AssertionError(what + ": element " + i + " is " + a[i] + ", retained " + e[i]);
            }
        }
    }
}
