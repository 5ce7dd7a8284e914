package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.DiagnosticsViewModel;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.engine.diagnose.FiniteOrigin;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.trace.TraceGraph;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javafx.scene.input.MouseButton;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** Finding the bad gradient in the window (TestFX + Monocle): the origin, a node's scalars, gradient checks, two runs. */
class BadGradientWindowTest extends WindowFixture {
    /** A case of the faults corpus, by title, as a program file. */
    private static Path fault(Path dir, String title) throws Exception {
        for (io.gradscope.app.viewmodel.FaultCorpus.Fault f : io.gradscope.app.viewmodel.FaultCorpus.faults()) {
            if (f.title().equals(title)) {
                Path p = dir.resolve("fault.grad");
                Files.writeString(p, f.program());
                return p;
            }
        }
        throw new AssertionError("no fault '" + title + "'");
    }

    @Test
    void anAbsorbedInfinityIsANoteNotAnAlarm(FxRobot robot, @TempDir Path tmp) throws Exception {
        Path file = Files.writeString(tmp.resolve("mask.grad"), "s = param(2, 3)\nx = input(2, 3)\nneg = -1 / (0 * (x * x))\nL = sum(s + exp(neg))\n");
        openAndWait(robot, file);
        waitUntil(() -> window.viewModel().diagnostics().finite().get() != null);
        WaitForAsyncUtils.waitForFxEvents();
        var bar = robot.lookup("#finding-bar").query();
        assertTrue(bar.isVisible());
        assertTrue(bar.getPseudoClassStates().contains(javafx.css.PseudoClass.getPseudoClass("absorbed")));
        String text = robot.lookup("#finding-text").queryLabeled().getText();
        assertTrue(text.startsWith("ℹ An infinity born at neg (line 3) is absorbed"), text);
        openAndWait(robot, fault(tmp, "log of a negative"));
        waitUntil(() -> !window.viewModel().diagnostics().finite().get().absorbed());
        WaitForAsyncUtils.waitForFxEvents();
        assertFalse(bar.getPseudoClassStates().contains(javafx.css.PseudoClass.getPseudoClass("absorbed")));
        String alarm = robot.lookup("#finding-text").queryLabeled().getText();
        assertTrue(alarm.startsWith("⚠ A non-finite value was born") && alarm.endsWith("; the objective is NaN."), alarm);
    }

    @Test
    void jumpToOriginSelectsTheProducerItsLineAndSaysWhy(FxRobot robot, @TempDir Path tmp) throws Exception {
        for (String title : new String[] {"log of a negative", "sqrt at zero: finite forward, infinite gradient"}) {
            Path file = fault(tmp, title);
            openAndWait(robot, file);
            waitUntil(() -> window.viewModel().diagnostics().finite().get() != null);
            WaitForAsyncUtils.waitForFxEvents();
            FiniteOrigin.Finding f = window.viewModel().diagnostics().finite().get().origin();
            assertNotNull(f, title);
            assertTrue(robot.lookup("#finding-bar").query().isVisible(), "the alert shows: " + title);
            robot.clickOn("#jump-origin");
            WaitForAsyncUtils.waitForFxEvents();
            Sweep s = sweep().recorded().get();
            int producer = s.graph().indexOf(f.node());
            assertEquals(producer, sweep().selected().get(), "the producer is selected: " + title);
            assertEquals(title.startsWith("log") ? "c" : "s", s.graph().vertex(producer).name());
            assertEquals(title.startsWith("log") ? Sweep.Mode.FORWARD : Sweep.Mode.BACKWARD, sweep().mode().get());
            assertEquals(s.graph().vertex(producer).name(), robot.lookup("#inspector-name").queryLabeled().getText());
            // Its line in the editor is selected.
            String line = Files.readAllLines(file).get(f.source().line() - 1);
            assertEquals(line, window.editor().area().getSelectedText());
            // Why, in the inspector and the alert.
            assertTrue(window.details().originNote().isVisible());
            assertTrue(window.details().originNote().getText().endsWith(f.why()), window.details().originNote().getText());
            assertTrue(robot.lookup("#finding-text").queryLabeled().getText().contains("Why: " + f.why()));
            // Drawn apart from the nodes that only pass it on.
            String fill = window.graphPanel().scene().look("v" + producer).fill();
            assertEquals(DiagnosticsViewModel.markPaint(DiagnosticsViewModel.Mark.PRODUCER).fill(), fill);
            boolean propagatorDrawn = s.graph().vertices().stream().anyMatch(v -> {
                var look = window.graphPanel().scene().look("v" + v.index());
                return look != null && look.fill().equals(DiagnosticsViewModel.markPaint(DiagnosticsViewModel.Mark.PROPAGATOR).fill());
            });
            assertTrue(propagatorDrawn, title);
        }
    }

    @Test
    void expandToScalarsFromANodesContextMenuShowsItsScalarsAndTheirGradients(FxRobot robot) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/course/03_matmul_vjp.grad"));
        Sweep s = sweep().recorded().get();
        int y = s.find("Y");
        var panel = window.graphPanel();
        waitUntil(() -> panel.boxOnScreen("v" + y) != null && panel.canvas().getWidth() > 0);
        WaitForAsyncUtils.waitForFxEvents();
        double[] box = panel.boxOnScreen("v" + y);
        robot.clickOn(panel.canvas().localToScreen(box[0] + box[2] / 2, box[1] + box[3] / 2), MouseButton.SECONDARY);
        ForwardModeWindowTest.chooseInMenu(robot, "Expand to Scalars");
        WaitForAsyncUtils.waitForFxEvents();
        ScalarGraphView view = robot.lookup("#scalar-graph").queryAs(ScalarGraphView.class);
        // A = [2, 3], B = [3, 2]: 12 inputs, 12 products, 4 partial sums, 4 outputs.
        assertEquals(32, view.boxes().size());
        // The inputs' gradients are the VJP the engine sent.
        var step = s.backwardStep(s.backwardStepOf(y));
        double[] dA = step.contributions().get(0).gradient().toDoubleArray();
        for (int k = 0; k < 6; k++) {
            String text = view.boxes().get(k).getText();
            assertTrue(text.startsWith("A[" + k / 3 + "," + k % 3 + "]"), text);
            assertTrue(text.endsWith(String.format(java.util.Locale.ROOT, "g %.4g", dA[k])), text + " vs " + dA[k]);
        }
        assertTrue(robot.lookup("#scalar-message").queryLabeled().getText().contains("agrees with the engine's"));
        robot.interact(() -> ((Stage) view.getScene().getWindow()).close());
        // An op the expansion does not cover shows the engine's message.
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        int loss = sweep().recorded().get().find("loss");
        robot.interact(() -> window.nodeMenu().expand(loss));
        WaitForAsyncUtils.waitForFxEvents();
        String message = robot.lookup("#scalar-message").queryLabeled().getText();
        assertTrue(message.startsWith("cross_entropy"), message);
        robot.interact(() -> ((Stage) robot.lookup("#scalar-message").query().getScene().getWindow()).close());
    }

    @Test
    void checkGradientsFromTheDebugMenuAndFloat32AgainstFloat64(FxRobot robot) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        robot.clickOn("Debug");
        ForwardModeWindowTest.chooseInMenu(robot, "Check Gradients");
        waitUntil(() -> window.viewModel().diagnostics().checked() > 0
                && !window.viewModel().diagnostics().checking().get());
        WaitForAsyncUtils.waitForFxEvents();
        Sweep s = sweep().recorded().get();
        int logits = s.find("logits");
        robot.interact(() -> sweep().select(logits));
        String check = robot.lookup("#check-note").queryLabeled().getText();
        assertTrue(check.startsWith("Gradient check: passes"), check);
        int n = window.viewModel().diagnostics().checked();
        assertTrue(n >= 6, "every op node of the MLP: " + n);
        assertTrue(window.statusBar().getText().startsWith("Gradient check: " + n + " of " + n + " nodes pass"),
                window.statusBar().getText());
        // Float32 against float64: the Compare tab, the table ranked, both runs' logits side by side.
        robot.clickOn("Compare");
        robot.clickOn("#compare-dtypes");
        waitUntil(() -> window.viewModel().diagnostics().comparison().get() != null);
        WaitForAsyncUtils.waitForFxEvents();
        var c = window.viewModel().diagnostics().comparison().get();
        ComparePanel panel = robot.lookup("#compare-panel").queryAs(ComparePanel.class);
        assertEquals(c.rows().size(), panel.table().getItems().size());
        assertEquals(s.graph().size(), c.rows().size());
        robot.interact(() -> sweep().select(logits));
        assertEquals("logits", panel.table().getSelectionModel().getSelectedItem().title());
        ProgramRun run32 = Program.load(Path.of("../assets/examples/mlp.grad")).run(new RunOptions(DType.FLOAT32, 0, Map.of()));
        TraceGraph g32 = TraceGraph.of(run32.trace());
        assertArrayEquals(g32.vertex(g32.indexOf(g32.vertices().stream().filter(v -> "logits".equals(v.name())).findFirst()
                .orElseThrow().id())).value().toDoubleArray(), panel.otherColumn().valueMap().tensor().toDoubleArray(), 0);
        assertArrayEquals(s.graph().vertex(logits).value().toDoubleArray(), panel.currentColumn().valueMap().tensor().toDoubleArray(), 0);
        assertTrue(robot.lookup("#diff-note").queryLabeled().getText().startsWith("float32 against float64"));
        // The graph is coloured by difference, with a legend.
        assertTrue(window.graphPanel().styleOf("v" + logits).contains("fill-color: #"));
        assertTrue(robot.lookup("#overlay-legend").query().isVisible());
        WaitForAsyncUtils.waitForFxEvents();
        assertFalse(robot.lookup("#overview").query().isVisible(), "the fitted graph stays whole when the legend takes its strip");
        assertFalse(window.viewModel().diagnostics().checking().get());
    }

    @Test
    void comparingDTypesColoursTheGraphByEachNodesDifference(FxRobot robot) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        DiagnosticsViewModel d = window.viewModel().diagnostics();
        robot.interact(d::compareDTypes);
        waitUntil(() -> d.comparison().get() != null);
        WaitForAsyncUtils.waitForFxEvents();
        var c = d.comparison().get();
        var top = c.rows().get(0);
        String key = "v" + c.currentVertex(top);
        // The node with the largest difference is drawn as the view-model paints it; the scale runs from
        // float32's rounding to 100%, so a difference under 1e-3 (rounding, not a bug) stays pale.
        assertNotNull(d.node(key));
        assertEquals(d.node(key).fill(), window.graphPanel().scene().look(key).fill());
        assertTrue(top.score() < 1e-3, "float32 rounding in the MLP: " + top.score());
        assertTrue(List.of("#fff5f0", "#fcbba1").contains(window.graphPanel().scene().look(key).fill()),
                window.graphPanel().scene().look(key).fill());
    }
}
