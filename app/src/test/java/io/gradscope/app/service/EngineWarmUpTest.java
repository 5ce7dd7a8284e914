package io.gradscope.app.service;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceEvent;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Note [Engine warm-up]: the warm-up's program runs the common ops, and a run after the warm-up shows
 * what the same run showed before it, value, gradients and memory figures alike; the progress told
 * on the way still reads as before.
 */
class EngineWarmUpTest {
    private static final String PROGRAM = "x = input(4, 8)\nw = param(8, 8)\nb = param(8)\nh = tanh(x @ w + b)\n"
            + "g = gelu(h) * 0.5 - sigmoid(h) / 2\nloss = sum(g * g) + mean(relu(h))\n";

    private static DirectRun run(String source) {
        return DirectRun.of(source, DType.FLOAT64);
    }

    @Test
    void theWarmUpProgramRunsTheCommonOps() {
        DirectRun s = run(EngineWarmUp.program());
        assertTrue(Double.isFinite(s.result().run().objective().item()));
        Set<String> ops = new TreeSet<>();
        for (TraceEvent e : s.result().run().trace().events()) {
            if (e instanceof TraceEvent.OpForward f) {
                ops.add(f.op());
            }
        }
        assertTrue(ops.containsAll(Set.of("matmul", "tanh", "relu", "sigmoid", "sin", "cos", "gelu", "exp", "neg", "add", "sub",
                "mul", "div", "sum", "mean")), ops.toString());
    }

    @Test
    void aRunAfterTheWarmUpShowsWhatItShowedBefore() {
        DirectRun before = run(PROGRAM);
        EngineWarmUp.start();
        EngineWarmUp.await();
        DirectRun after = run(PROGRAM);
        assertEquals(Double.doubleToRawLongBits(before.result().run().objective().item()),
                Double.doubleToRawLongBits(after.result().run().objective().item()));
        for (String leaf : List.of("w", "b")) {
            assertArrayEquals(before.result().run().gradient(leaf).toDoubleArray(), after.result().run().gradient(leaf).toDoubleArray(), 0.0);
        }
        assertEquals(before.result().run().timeline().peakBytes(), after.result().run().timeline().peakBytes());
        assertEquals(before.result().run().trace().events().size(), after.result().run().trace().events().size());
        // The progress messages are written when shown: the same text as before they were made lazy.
        assertEquals(before.messages(), after.messages());
        assertTrue(after.messages().contains("Running p.grad: 6 of 6"), after.messages().toString());
        assertTrue(after.messages().stream().anyMatch(m -> m.matches("Backward pass of p\\.grad: \\d+ of \\d+")), after.messages().toString());
        assertEquals("Laying out " + after.result().graph().size() + " nodes…", after.messages().get(after.messages().size() - 1));
    }
}
