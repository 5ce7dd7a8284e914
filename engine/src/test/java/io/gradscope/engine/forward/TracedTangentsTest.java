package io.gradscope.engine.forward;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.run.Directional;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A run carrying a tangent records it: J·v per value in the forward pass, H·v at the leaf in the backward pass. */
class TracedTangentsTest {
    @Test
    void theTraceHoldsEveryTangentAndTheLeafsHvp() {
        Program p = Program.load(Path.of("../assets/examples/course/09_hessian_vector.grad"));
        RunOptions o = new RunOptions(DType.FLOAT64, 0, Map.of());
        Tensor v = Tensor.of(new double[] {0.5, -1, 0.25, 2}, 4);
        ProgramRun run = Directional.tracedRun(p, o, "w", v);
        TraceGraph g = TraceGraph.of(run.trace());
        List<TraceEvent.Tangent> tangents = run.trace().of(TraceEvent.Tangent.class);
        Directional.JvpResult jvp = Directional.jvp(p, o, "w", v);
        int forward = 0;
        for (TraceEvent.Tangent t : tangents) {
            if (t.backward()) {
                continue;
            }
            forward++;
            TraceGraph.Vertex vert = g.vertex(g.indexOf(t.node()));
            assertFalse(t.rule().isBlank(), vert.title());
            if (vert.name() != null) {
                assertClose(jvp.tangents().get(vert.name()).toDoubleArray(), t.tangent().toDoubleArray(), 1e-12, 1e-14,
                        "tangent of " + vert.name());
            }
        }
        assertTrue(forward >= 5, "w, the matmul, sigmoid, the loss terms: " + forward);
        long leafId = g.vertices().stream().filter(x -> "w".equals(x.name())).findFirst().orElseThrow().id();
        TraceEvent.Tangent atLeaf = tangents.stream().filter(t -> t.backward() && t.node() == leafId).findFirst().orElseThrow();
        assertClose(Directional.hvp(p, o, "w", v, Hvp.Method.REVERSE_OVER_REVERSE).toDoubleArray(), atLeaf.tangent().toDoubleArray(),
                1e-10, 1e-12, "the second sweep ends in H·v");
        long steps = run.trace().of(TraceEvent.BackwardStep.class).size();
        assertEquals(steps, tangents.stream().filter(TraceEvent.Tangent::backward).count(), "one per backward step");
    }
}
