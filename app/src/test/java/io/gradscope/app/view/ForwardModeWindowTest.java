package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.service.Direction;
import io.gradscope.app.service.TangentChoice;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.engine.forward.Hvp;
import io.gradscope.engine.run.Directional;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.TensorStats;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.nio.file.Path;
import java.util.Map;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** Forward mode and H·v in the window (TestFX + Monocle): the numbers on screen are the engine's. */
class ForwardModeWindowTest extends WindowFixture {
    private static final RunOptions F64 = new RunOptions(DType.FLOAT64, 0, Map.of());

    private void waitForRun() throws Exception {
        WaitForAsyncUtils.waitForFxEvents();
        waitUntil(() -> !window.viewModel().running().get()
                && (sweep().recorded().get() != null || window.viewModel().error().get() != null));
        WaitForAsyncUtils.waitForFxEvents();
    }

    @Test
    void theForwardSweepShowsEachValuesTangentAsTheEngineComputesIt(FxRobot robot) throws Exception {
        robot.interact(() -> window.viewModel().open(Path.of("../assets/examples/mlp.grad")));
        waitForRun();
        // Choose the tangent in the transport bar: the leaf W1, the direction random.
        robot.clickOn("#tangent-chooser");
        chooseInMenu(robot, "W1");
        waitForRun();
        robot.clickOn("#tangent-chooser");
        chooseInMenu(robot, "random");
        waitForRun();
        assertEquals(new TangentChoice("W1", "random"), window.viewModel().derivatives().tangent().get());
        assertEquals("tangent: W1 · random", robot.lookup("#tangent-chooser").queryLabeled().getText());
        robot.clickOn("#mode-forward");
        assertEquals(Sweep.Mode.FORWARD, sweep().mode().get());
        Sweep s = sweep().recorded().get();
        Program p = Program.load(Path.of("../assets/examples/mlp.grad"));
        Tensor v = Direction.parse("tangent", "random", new int[] {20, 64}, DType.FLOAT64, 0);
        Directional.JvpResult jvp = Directional.jvp(p, F64, "W1", v);
        robot.interact(() -> window.graphPanel().requestFocus());
        Heatmap tangent = window.details().valueTangentMap();
        int shownTangents = 0;
        for (int i = 0; i < s.steps(Sweep.Mode.FORWARD); i++) {
            robot.type(KeyCode.RIGHT);
            WaitForAsyncUtils.waitForFxEvents();
            TraceGraph.Vertex x = s.graph().vertex(sweep().currentVertex());
            assertEquals(x.title(), robot.lookup("#inspector-name").queryLabeled().getText());
            TraceEvent.Tangent recorded = window.viewModel().derivatives().valueTangent(x.index());
            assertTrue(tangent.getParent().isVisible(), "the tangent map is beside the value: " + x.title());
            if (recorded == null) {
                assertEquals(null, tangent.tensor(), x.title() + " does not depend on W1");
                continue;
            }
            shownTangents++;
            assertArrayEquals(recorded.tangent().toDoubleArray(), tangent.tensor().toDoubleArray(), 0, x.title());
            assertEquals(Heatmap.statsLine(TensorStats.of(recorded.tangent())), tangent.statsText());
            assertEquals("JVP: " + recorded.rule(), robot.lookup("#jvp-rule").queryLabeled().getText());
            if (x.name() != null) {
                // The engine's forward mode, computed independently of the traced run.
                assertArrayEquals(jvp.tangents().get(x.name()).toDoubleArray(), tangent.tensor().toDoubleArray(), 1e-12, x.name());
            }
        }
        assertTrue(shownTangents >= 6, "W1, the hidden layer, the logits, the loss: " + shownTangents);
        // The loss's tangent is the directional derivative ⟨∇loss, v⟩.
        assertEquals(jvp.jvp().item(), tangent.tensor().item(), 1e-12);
    }

    @Test
    void theHvpViewShowsHvAndTheHessianAndTheSecondSweepSteps(FxRobot robot) throws Exception {
        Path file = Path.of("../assets/examples/course/09_hessian_vector.grad");
        robot.interact(() -> window.viewModel().open(file));
        waitForRun();
        // The # open: hvp line: the H·v tab, the end of the backward sweep with w selected.
        assertEquals("tab-hvp", window.side().getSelectionModel().getSelectedItem().getId());
        Tensor v = Direction.parse("vector", "random", new int[] {4}, DType.FLOAT64, 0);
        double[] expected = Directional.hvp(Program.load(file), F64, "w", v, Hvp.Method.REVERSE_OVER_REVERSE).toDoubleArray();
        Heatmap hvp = robot.lookup("#hvp-map").queryAs(Heatmap.class);
        assertArrayEquals(expected, hvp.tensor().toDoubleArray(), 1e-10);
        robot.clickOn("#hessian-compute");
        waitUntil(() -> window.viewModel().derivatives().hessian().get() != null);
        WaitForAsyncUtils.waitForFxEvents();
        Tensor h = robot.lookup("#hessian-map").queryAs(Heatmap.class).tensor();
        assertNotNull(h);
        double[] m = h.toDoubleArray();
        for (int i = 0; i < 4; i++) {
            double hv = 0;
            for (int j = 0; j < 4; j++) {
                assertEquals(m[i * 4 + j], m[j * 4 + i], 1e-10);
                hv += m[i * 4 + j] * v.toDoubleArray()[j];
            }
            assertEquals(expected[i], hv, 1e-10, "H times v is H·v");
        }
        // The Node tab: at w, the tangent of its gradient is H·v beside the gradient.
        robot.clickOn("Node");
        assertEquals("w", robot.lookup("#inspector-name").queryLabeled().getText());
        assertArrayEquals(expected, window.details().upstreamTangentMap().tensor().toDoubleArray(), 1e-10);
        // Stepping the second sweep back from the start: every step shows its gradient's tangent.
        robot.interact(() -> {
            sweep().select(-1);
            sweep().toStart();
        });
        robot.interact(() -> window.graphPanel().requestFocus());
        for (int i = 0; i < sweep().steps(); i++) {
            robot.type(KeyCode.RIGHT);
            WaitForAsyncUtils.waitForFxEvents();
            TraceGraph.Vertex x = sweep().vertex(sweep().currentVertex());
            TraceEvent.Tangent t = window.viewModel().derivatives().upstreamTangent(x.index());
            assertNotNull(t, x.title());
            assertArrayEquals(t.tangent().toDoubleArray(), window.details().upstreamTangentMap().tensor().toDoubleArray(), 0);
        }
    }
}
