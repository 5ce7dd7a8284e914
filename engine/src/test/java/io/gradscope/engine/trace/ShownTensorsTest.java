package io.gradscope.engine.trace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.alloc.Retention;
import io.gradscope.engine.ops.OpRegistry;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.recompute.RematPolicy;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What an op records beyond its value ({@code Op.shown}, {@link TraceEvent.OpForward#shown()}):
 * dropout's mask, checked against the value and input it was recorded with; kept or dropped with
 * the run's values; nothing for an op that has nothing more to show.
 */
class ShownTensorsTest {
    private static final double P = 0.3;
    private static final String PROGRAM = """
            x = input(64, 64)
            W = param(64, 64)
            h = dropout(x @ W, p=0.3, seed=5)
            t = tanh(h)
            loss = sum(t * t)
            """;

    private static ProgramRun run(Retention r) {
        Program p = Program.parse("dropout.grad", PROGRAM);
        RunOptions o = new RunOptions(DType.FLOAT64, 7, Map.of());
        return p.run(o, p.plan(o, RematPolicy.SEGMENTS, false), r, (phase, done, total) -> { });
    }

    private static TraceGraph.Vertex named(TraceGraph g, String name) {
        return g.vertices().stream().filter(v -> name.equals(v.name())).findFirst().orElseThrow();
    }

    @Test
    void dropoutRecordsTheScaledMaskItMultipliedItsInputBy() {
        TraceGraph g = TraceGraph.of(run(Retention.ALL).trace());
        TraceGraph.Vertex h = named(g, "h");
        assertEquals(1, h.shown().size(), h.shown().keySet().toString());
        String name = h.shown().keySet().iterator().next();
        assertEquals("Mask (kept ×1/(1−p) = ×1.429, dropped 0)", name);
        Tensor mask = h.shown().get(name);
        Tensor in = g.vertex(g.inputOf(h.index(), 0)).value();
        assertArrayEquals(h.value().shape(), mask.shape());
        double[] m = mask.toDoubleArray();
        double[] y = h.value().toDoubleArray();
        double[] x = in.toDoubleArray();
        int dropped = 0;
        int compared = 0;
        for (int i = 0; i < m.length; i++) {
            // Independently of the op: where its input is non-zero, the mask is the value over the input.
            if (x[i] != 0) {
                assertEquals(y[i] / x[i], m[i], 1e-12 * Math.abs(m[i]) + 1e-15, "element " + i);
                compared++;
            }
            assertTrue(m[i] == 0 || Math.abs(m[i] - 1 / (1 - P)) < 1e-15, "0 or 1/(1 − p): " + m[i]);
            dropped += m[i] == 0 ? 1 : 0;
        }
        assertTrue(compared > m.length * 0.99, compared + " of " + m.length + " compared");
        double n = m.length;
        double sigma = Math.sqrt(n * P * (1 - P));
        assertTrue(Math.abs(dropped - n * P) < 5 * sigma, dropped + " dropped of " + m.length + ", expected about " + n * P);
    }

    @Test
    void anOpWithoutExtrasAndALeafRecordNone() {
        TraceGraph g = TraceGraph.of(run(Retention.ALL).trace());
        assertTrue(named(g, "t").shown().isEmpty(), "tanh shows nothing beyond its value");
        assertTrue(named(g, "x").shown().isEmpty(), "a leaf shows nothing beyond its value");
        assertTrue(named(g, "loss").shown().isEmpty());
    }

    @Test
    void aMaskTheRunDidNotRetainIsAStandInOfItsShape() {
        TraceGraph.Vertex h = named(TraceGraph.of(run(Retention.NONE).trace()), "h");
        Tensor mask = h.shown().values().iterator().next();
        assertTrue(NotRetained.is(mask), "released after dropout's backward step under none");
        assertArrayEquals(new int[] {64, 64}, mask.shape());
    }

    @Test
    void aRecorderWithoutValuesKeepsTheNameAndAStandIn() throws Exception {
        Tensor x = Tensor.of(new double[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Trace trace;
        try (Recorder rec = Recorder.start(false)) {
            Ops.apply(OpRegistry.create("dropout", Map.of("p", 0.5, "seed", 1)), x);
            trace = rec.trace();
        }
        TraceEvent.OpForward f = (TraceEvent.OpForward) trace.events().stream()
                .filter(e -> e instanceof TraceEvent.OpForward).findFirst().orElseThrow();
        assertEquals(null, f.value());
        assertEquals("Mask (kept ×1/(1−p) = ×2, dropped 0)", f.shown().keySet().iterator().next());
        assertTrue(NotRetained.is(f.shown().values().iterator().next()));
    }

    @Test
    void theJsonTraceCarriesTheMask() throws Exception {
        Tensor x = Tensor.of(new double[] {1, 2, 3, 4}, 4);
        Trace trace;
        try (Recorder rec = Recorder.start()) {
            Ops.apply(OpRegistry.create("dropout", Map.of("p", 0.5, "seed", 1)), x);
            trace = rec.trace();
        }
        StringWriter out = new StringWriter();
        TraceJson.write(trace, out);
        assertTrue(out.toString().contains("\"shown\":{\"Mask (kept ×1/(1−p) = ×2, dropped 0)\":{\"dtype\""), out.toString());
        assertFalse(out.toString().contains("\"shown\":null"));
    }
}
