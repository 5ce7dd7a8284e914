package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.OnDemandViewModel;
import io.gradscope.engine.alloc.Retention;
import io.gradscope.engine.trace.NotRetained;
import io.gradscope.engine.trace.TraceGraph;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** The inspector on a run that kept no intermediate values ({@code --retain none}) says what it recomputed. */
class RetainWindowTest extends WindowFixture {

    @Test
    void theInspectorSaysAValueAndAGradientWereRecomputedOnDemand(FxRobot robot) {
        robot.interact(() -> vm().setRetention(Retention.Kind.NONE));
        openText(robot, "retain.grad", "x = input(3, 4)\nW = param(4, 2)\nh = tanh(x @ W)\nloss = sum(h * h)\n");
        TraceGraph g = sweep().recorded().get().graph();
        int h = g.vertices().stream().filter(v -> "h".equals(v.name())).findFirst().orElseThrow().index();
        assertTrue(NotRetained.is(g.vertex(h).value()), "h is not retained under none");
        robot.interact(() -> {
            sweep().toEnd();
            sweep().select(h);
        });
        Inspector inspector = window.inspector();
        waitUntil("h's value recomputed", () -> OnDemandViewModel.NOTE.equals(inspector.valueMap().noteText()));
        waitUntil("h's gradient recomputed", () -> OnDemandViewModel.NOTE.equals(inspector.upstreamMap().noteText()));
        assertEquals(OnDemandViewModel.NOTE, inspector.valueMap().noteText());
        robot.interact(() -> vm().setRetention(Retention.Kind.ALL));
        openText(robot, "retain.grad", "x = input(3, 4)\nW = param(4, 2)\nh = tanh(x @ W)\nloss = sum(h * h)\n");
        robot.interact(() -> {
            sweep().toEnd();
            sweep().select(h);
        });
        assertEquals("", inspector.valueMap().noteText(), "a retained value has no note");
    }
}
