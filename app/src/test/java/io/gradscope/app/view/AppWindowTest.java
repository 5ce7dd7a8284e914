package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.export.Exporter;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.engine.tensor.Device;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.tensor.TensorStats;
import io.gradscope.engine.trace.TraceEvent;
import io.gradscope.engine.trace.TraceGraph;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** The app headless (TestFX + Monocle): open an example, step the whole sweep by keyboard, read the inspector. */
class AppWindowTest extends WindowFixture {
    @Test
    void stepsTheWholeBackwardSweepWithTheKeyboard(FxRobot robot) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        Sweep sweep = sweep().recorded().get();
        List<TraceEvent.BackwardStep> steps = sweep.run().trace().of(TraceEvent.BackwardStep.class);
        assertTrue(steps.size() >= 8, "steps: " + steps.size());
        robot.interact(() -> window.graphPanel().requestFocus());
        for (int i = 0; i < steps.size(); i++) {
            int refreshes = window.inspector().refreshes();
            robot.type(KeyCode.RIGHT);
            WaitForAsyncUtils.waitForFxEvents();
            assertEquals(i, sweep().cursor().get(), "after " + (i + 1) + " presses");
            assertEquals(refreshes + 1, window.inspector().refreshes(), "the inspector refreshes once per step");
            TraceGraph.Vertex v = sweep.graph().vertex(sweep.graph().indexOf(steps.get(i).node()));
            // The graph shows it as the current node.
            assertTrue(window.graphPanel().styleOf("v" + v.index()).contains("#e0a800"), "current: " + v.title());
            // The inspector shows the current node and the engine's upstream gradient for it.
            assertEquals(v.title(), robot.lookup("#inspector-name").queryLabeled().getText());
            Tensor shown = window.inspector().upstreamMap().tensor();
            assertArrayEquals(steps.get(i).upstream().toDoubleArray(), shown.toDoubleArray(), 0, "upstream of " + v.title());
            assertEquals(Heatmap.statsLine(TensorStats.of(steps.get(i).upstream())), window.inspector().upstreamMap().statsText());
        }
        robot.type(KeyCode.RIGHT);
        assertEquals(steps.size() - 1, sweep().cursor().get(), "the end is the end");
        robot.type(KeyCode.HOME);
        assertEquals(-1, sweep().cursor().get());
        robot.type(KeyCode.END);
        assertEquals(steps.size() - 1, sweep().cursor().get());
        robot.type(KeyCode.LEFT);
        assertEquals(steps.size() - 2, sweep().cursor().get());
    }

    @Test
    void clickingANodeSelectsItAndTheInspectorFollows(FxRobot robot) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/backprop_chain.grad"));
        var panel = window.graphPanel();
        double[] box = panel.boxOnScreen("v1");
        javafx.geometry.Point2D screen = panel.canvas().localToScreen(box[0] + box[2] / 2, box[1] + box[3] / 2);
        robot.clickOn(screen);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(1, sweep().selected().get(), "W is vertex 1");
        assertEquals("W", robot.lookup("#inspector-name").queryLabeled().getText());
        robot.type(KeyCode.ESCAPE);
        assertEquals(-1, sweep().selected().get());
    }

    @Test
    void theLogitsGradientRowsSumToZero(FxRobot robot) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        int logits = -1;
        for (TraceGraph.Vertex v : sweep().recorded().get().graph().vertices()) {
            if ("logits".equals(v.name())) {
                logits = v.index();
            }
        }
        int id = logits;
        robot.interact(() -> {
            sweep().toEnd();
            sweep().select(id);
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals("logits", robot.lookup("#inspector-name").queryLabeled().getText());
        // (softmax − onehot) / N: every row of the upstream gradient sums to zero.
        double[] g = window.inspector().upstreamMap().tensor().toDoubleArray();
        for (int r = 0; r < g.length / 10; r++) {
            double s = 0;
            for (int c = 0; c < 10; c++) {
                s += g[r * 10 + c];
            }
            assertEquals(0, s, 1e-12, "row " + r);
        }
        assertTrue(window.inspector().upstreamMap().statsText().contains("NaN 0"), window.inspector().upstreamMap().statsText());
    }

    @Test
    void aProgramWithAnErrorShowsTheMessageAtItsLineAndKeepsTheText(FxRobot robot, @TempDir Path tmp) throws Exception {
        Path bad = tmp.resolve("bad.grad");
        String text = "x = input(32, 784)\nW = param(128, 10)\nlogits = x @ W\nloss = sum(logits)\n";
        Files.writeString(bad, text);
        openAndWait(robot, bad);
        String expected = "bad.grad:3:12: error: '@' needs matching inner dimensions: [32, 784] @ [128, 10] (784 != 128)";
        assertEquals(expected, robot.lookup("#editor-error").queryLabeled().getText());
        assertTrue(robot.lookup("#editor-error").queryLabeled().isVisible());
        assertEquals(3, window.editor().errorLine());
        assertEquals(text, window.editor().area().getText(), "the user's text is kept");
        // Fix it in the editor and run again with Ctrl+Enter: the error goes away.
        robot.interact(() -> window.editor().area().replaceText(text.replace("param(128, 10)", "param(784, 10)")));
        robot.interact(() -> window.editor().area().requestFocus());
        robot.press(KeyCode.CONTROL).press(KeyCode.ENTER).release(KeyCode.ENTER).release(KeyCode.CONTROL);
        waitUntil(() -> !window.viewModel().running().get()
                && window.viewModel().error().get() == null && sweep().recorded().get() != null);
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(!robot.lookup("#editor-error").queryLabeled().isVisible());
        assertEquals(0, window.editor().errorLine());
    }

    @Test
    void withoutAGpuCudaFallsBackToTheCpuWithANotice(FxRobot robot) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(io.gradscope.engine.tensor.Backends.cudaAvailable(), "a GPU is present");
        robot.interact(() -> window.viewModel().setDevice(Device.CUDA));
        openAndWait(robot, Path.of("../assets/examples/backprop_chain.grad"));
        String text = window.statusBar().getText();
        assertTrue(text.startsWith("CUDA unavailable: ") && text.contains("ran on the CPU") && text.contains("objective"), text);
        assertEquals(Device.CPU, sweep().recorded().get().run().objective().device());
        assertEquals(Device.CPU, window.viewModel().device().get(), "the selector follows the fall-back");
    }

    @Test
    void switchedToCudaTheRunAndTheInspectorUseTheDevice(FxRobot robot) throws Exception {
        // In CI this runs on the CUDA driver stand-in (the tests' CPU libcuda.so.1).
        org.junit.jupiter.api.Assumptions.assumeTrue(io.gradscope.engine.tensor.Backends.cudaAvailable(),
                () -> "CUDA unavailable: " + io.gradscope.engine.tensor.Backends.cudaProblem());
        robot.interact(() -> window.viewModel().setDevice(Device.CUDA));
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        assertEquals(null, window.viewModel().error().get());
        Sweep sweep = sweep().recorded().get();
        assertEquals(io.gradscope.engine.tensor.Device.CUDA, sweep.run().objective().device());
        String text = window.statusBar().getText();
        assertTrue(!text.contains("unavailable") && text.contains("objective"), text);
        List<TraceEvent.BackwardStep> steps = sweep.run().trace().of(TraceEvent.BackwardStep.class);
        robot.interact(() -> window.graphPanel().requestFocus());
        for (int i = 0; i < 3; i++) {
            robot.type(KeyCode.RIGHT);
            WaitForAsyncUtils.waitForFxEvents();
            // The inspector reads the device tensor back (on the FX thread, not the run's).
            Tensor shown = window.inspector().upstreamMap().tensor();
            assertArrayEquals(steps.get(i).upstream().toDoubleArray(), shown.toDoubleArray(), 0, "step " + i);
        }
        // The same program on the CPU gives the same objective.
        robot.interact(() -> window.viewModel().setDevice(Device.CPU));
        double onCuda = sweep.run().objective().item();
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        assertEquals(io.gradscope.engine.tensor.Device.CPU, sweep().recorded().get().run().objective().device());
        assertEquals(sweep().recorded().get().run().objective().item(), onCuda, 1e-9 * Math.abs(onCuda));
    }

    @Test
    void groupsCollapseToOneNodeAndExportsWrite(FxRobot robot, @TempDir Path tmp) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/transformer_block.grad"));
        int before = window.graphPanel().currentLayout().nodes().size();
        // The layout of a collapse comes off the FX thread.
        robot.interact(() -> sweep().collapseAll());
        waitUntil(() -> !window.graphPanel().currentLayout().collapsed().isEmpty());
        WaitForAsyncUtils.waitForFxEvents();
        int after = window.graphPanel().currentLayout().nodes().size();
        assertTrue(window.graphPanel().currentLayout().nodes().containsKey("g:attention"));
        assertTrue(window.graphPanel().scene().indexOf("g:attention") >= 0, "drawn");
        assertTrue(after < before, before + " -> " + after);
        robot.interact(() -> sweep().expandAll());
        waitUntil(() -> window.graphPanel().currentLayout().collapsed().isEmpty());
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(before, window.graphPanel().currentLayout().nodes().size());
        Path png = tmp.resolve("graph.png");
        Path json = tmp.resolve("trace.json");
        Path svg = tmp.resolve("graph.svg");
        robot.interact(() -> sweep().jumpTo(2));
        robot.interact(() -> {
            assertTrue(window.exporter().export(Exporter.Format.PNG, png));
            assertTrue(window.exporter().export(Exporter.Format.TRACE_JSON, json));
            assertTrue(window.exporter().export(Exporter.Format.SVG, svg));
        });
        assertEquals("Wrote " + svg, window.statusBar().getText());
        byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 4);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, head);
        var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.toFile());
        assertEquals(sweep().recorded().get().run().trace().events().size(), tree.get("events").size());
        // The SVG is well-formed XML with a node per display node, an edge per drawn edge, and the lit edges orange.
        var doc = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
        var layout = window.graphPanel().currentLayout();
        var xpath = javax.xml.xpath.XPathFactory.newInstance().newXPath();
        assertEquals(layout.nodes().size(), ((Number) xpath.evaluate("count(//*[@class='node'])", doc,
                javax.xml.xpath.XPathConstants.NUMBER)).intValue());
        assertEquals(layout.edges().size(), ((Number) xpath.evaluate("count(//*[@class='edge'])", doc,
                javax.xml.xpath.XPathConstants.NUMBER)).intValue());
        int lit = sweep().recorded().get().activeEdges(sweep().mode().get(), 2).size();
        assertTrue(lit > 0);
        assertEquals(lit, ((Number) xpath.evaluate("count(//*[@class='edge']/*[local-name()='polyline'][@stroke='#e0582b'])", doc,
                javax.xml.xpath.XPathConstants.NUMBER)).intValue());
    }
}
