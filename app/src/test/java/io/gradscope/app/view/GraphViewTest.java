package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.draw.Camera;
import io.gradscope.app.draw.Looks;
import io.gradscope.app.export.Exporter;
import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.viewmodel.Sweep;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javafx.scene.image.WritableImage;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;
import javafx.scene.paint.Color;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** The graph view headless: Fit, zoom, the overview map, folding, exports of the whole graph in the screen's colours. */
class GraphViewTest extends WindowFixture {
    private GraphPanel panel() {
        return window.graphPanel();
    }

    private void relayout(FxRobot robot, Runnable command) throws Exception {
        GraphLayout.Result before = panel().currentLayout();
        robot.interact(command);
        waitUntil(() -> panel().currentLayout() != before);
    }

    private void assertEverythingInView(String what) {
        double w = panel().canvas().getWidth();
        double h = panel().canvas().getHeight();
        for (String key : panel().currentLayout().nodes().keySet()) {
            double[] b = panel().boxOnScreen(key);
            assertTrue(b[0] >= 0 && b[1] >= 0 && b[0] + b[2] <= w && b[1] + b[3] <= h,
                    what + ": " + key + " at " + java.util.Arrays.toString(b) + " outside " + w + "x" + h);
        }
    }

    @Test
    void fitShowsEveryNodeOfEveryGraphAndCtrl0Fits(FxRobot robot) throws Exception {
        for (String ex : Examples.TOP) {
            openText(robot, ex + ".grad", Examples.text(ex));
            assertEverythingInView(ex + " as opened");
            robot.interact(() -> {
                panel().zoomIn();
                panel().zoomIn();
                panel().camera().panBy(300, 200);
            });
            robot.interact(() -> panel().requestFocus());
            robot.press(KeyCode.CONTROL).press(KeyCode.DIGIT0).release(KeyCode.DIGIT0).release(KeyCode.CONTROL);
            WaitForAsyncUtils.waitForFxEvents();
            assertEverythingInView(ex + " after Ctrl+0");
        }
        openText(robot, "residual_chain.grad", Examples.residualChain(150));
        assertEverythingInView("the residual chain, folded");
        relayout(robot, sweep()::expandAll);
        robot.interact(() -> panel().fit());
        assertEquals(753, panel().currentLayout().nodes().size());
        assertEverythingInView("the residual chain, unfolded");
    }

    @Test
    void aNewFileOpensFittedWhateverTheZoomBefore(FxRobot robot) throws Exception {
        openText(robot, "residual_chain.grad", Examples.residualChain(150));
        relayout(robot, sweep()::expandAll);
        robot.interact(() -> {
            for (int i = 0; i < 12; i++) {
                panel().zoomIn();
            }
        });
        openText(robot, "mlp.grad", Examples.text("mlp"));
        Camera fitted = new Camera();
        fitted.resize(panel().canvas().getWidth(), panel().canvas().getHeight());
        fitted.fit(panel().currentLayout().bounds());
        assertEquals(fitted.scale(), panel().camera().scale(), 1e-9);
        assertEverythingInView("mlp after the chain");
    }

    @Test
    void theRunStartsFoldedAndADoubleClickUnfoldsIt(FxRobot robot) throws Exception {
        openText(robot, "residual_chain.grad", Examples.residualChain(150));
        assertEquals(4, panel().currentLayout().nodes().size());
        assertNotNull(panel().currentLayout().nodes().get("g:⟳1"));
        double[] b = panel().boxOnScreen("g:⟳1");
        GraphLayout.Result before = panel().currentLayout();
        robot.doubleClickOn(panel().canvas().localToScreen(b[0] + b[2] / 2, b[1] + b[3] / 2), MouseButton.PRIMARY);
        waitUntil(() -> panel().currentLayout() != before);
        assertEquals(753, panel().currentLayout().nodes().size());
        // The run stays where it was: its box's corner is where the folded node's was.
        GraphLayout.Box run = panel().currentLayout().groups().get(0).box();
        assertEquals(b[0], panel().camera().toPxX(run.x()), 1e-6);
        assertEquals(b[1], panel().camera().toPxY(run.y()), 1e-6);
        relayout(robot, sweep()::foldRepeats);
        assertEquals(4, panel().currentLayout().nodes().size());
    }

    @Test
    void theOverviewMapShowsTheViewAndMovesIt(FxRobot robot) throws Exception {
        openText(robot, "residual_chain.grad", Examples.residualChain(150));
        relayout(robot, sweep()::expandAll);
        robot.interact(() -> panel().fit());
        WaitForAsyncUtils.waitForFxEvents();
        assertFalse(panel().overview().isVisible(), "everything in view: no map");
        robot.interact(() -> {
            for (int i = 0; i < 10; i++) {
                panel().zoomIn();
            }
        });
        WaitForAsyncUtils.waitForFxEvents();
        assertTrue(panel().overview().isVisible(), "zoomed in: the map shows where the view is");
        // Press on the map's lower right: the view centres on that part of the graph.
        OverviewMap map = panel().overview();
        double mx = map.getWidth() * 0.8;
        double my = map.getHeight() * 0.75;
        double[] target = map.layoutAt(mx, my);
        robot.clickOn(map.localToScreen(mx, my));
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(target[0], panel().camera().centerX(), 2 / map.scale());
        assertEquals(target[1], panel().camera().centerY(), 2 / map.scale());
    }

    @Test
    void exportsHoldTheWholeGraphInTheScreensColours(FxRobot robot, @TempDir Path tmp) throws Exception {
        openText(robot, "mlp.grad", Examples.text("mlp"));
        robot.interact(() -> {
            for (int i = 0; i < 8; i++) {
                panel().zoomIn();
            }
            sweep().jumpTo(5);
        });
        WaitForAsyncUtils.waitForFxEvents();
        Path png = tmp.resolve("graph.png");
        Path svg = tmp.resolve("graph.svg");
        robot.interact(() -> {
            assertTrue(window.exporter().export(Exporter.Format.PNG, png));
            assertTrue(window.exporter().export(Exporter.Format.SVG, svg));
        });
        // The PNG is the whole graph at a readable scale, not the zoomed-in view.
        var img = javax.imageio.ImageIO.read(png.toFile());
        GraphLayout.Result l = panel().currentLayout();
        assertEquals(Math.ceil(l.width() * 1.5 + 40), img.getWidth(), 1);
        assertEquals(Math.ceil(l.height() * 1.5 + 40), img.getHeight(), 1);
        // The SVG draws every node with the look the screen gives it: current yellow, visited green, unreached dim.
        String text = Files.readString(svg);
        var doc = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
        var xpath = javax.xml.xpath.XPathFactory.newInstance().newXPath();
        Map<Sweep.State, Integer> seen = new java.util.EnumMap<>(Sweep.State.class);
        for (String key : l.nodes().keySet()) {
            Looks.NodeLook look = panel().scene().look(key);
            String fill = xpath.evaluate("//*[@class='node'][@id='" + key + "']/*[local-name()='rect'][1]/@fill", doc);
            String stroke = xpath.evaluate("//*[@class='node'][@id='" + key + "']/*[local-name()='rect'][2]/@stroke", doc);
            assertEquals(look.fill(), fill, key);
            assertEquals(look.stroke(), stroke, key);
            seen.merge(sweep().graphStates().state(key), 1, Integer::sum);
        }
        assertTrue(seen.keySet().containsAll(java.util.List.of(Sweep.State.CURRENT, Sweep.State.VISITED, Sweep.State.PENDING)), seen.toString());
        String current = window.viewModel().sweep().keyOf(sweep().currentVertex());
        assertTrue(text.contains("id=\"" + current + "\""));
        assertEquals(Looks.CURRENT_FILL, xpath.evaluate("//*[@class='node'][@id='" + current + "']/*[local-name()='rect'][1]/@fill", doc));
        // And the screen shows the current node in that yellow.
        robot.interact(() -> {
            panel().centerOn(current);
            panel().drawNow();
        });
        double[] b = panel().boxOnScreen(current);
        WritableImage[] img2 = new WritableImage[1];
        robot.interact(() -> img2[0] = panel().canvas().snapshot(null, null));
        // Most of the box's inside (its border and label aside) is that yellow; no single pixel is asked for.
        double share = shareOfColour(img2[0], b, Color.web(Looks.CURRENT_FILL));
        assertTrue(share > 0.4, "the current node's box is " + Math.round(share * 100) + "% " + Looks.CURRENT_FILL);
        // A visited node's box is not.
        String visited = l.nodes().keySet().stream().filter(k -> sweep().graphStates().state(k) == Sweep.State.VISITED)
                .findFirst().orElseThrow();
        robot.interact(() -> {
            panel().centerOn(visited);
            panel().drawNow();
            img2[0] = panel().canvas().snapshot(null, null);
        });
        double other = shareOfColour(img2[0], panel().boxOnScreen(visited), Color.web(Looks.CURRENT_FILL));
        assertTrue(other < 0.05, "a visited node's box is " + Math.round(other * 100) + "% " + Looks.CURRENT_FILL);
    }

    /** The share of the pixels inside {@code box} (x, y, w, h on the canvas, 3 px in from its edges) within 0.03 of {@code c} in each channel. */
    private static double shareOfColour(WritableImage img, double[] box, Color c) {
        int x0 = (int) Math.ceil(Math.max(0, box[0]) + 3);
        int y0 = (int) Math.ceil(Math.max(0, box[1]) + 3);
        int x1 = (int) Math.floor(Math.min(img.getWidth(), box[0] + box[2]) - 3);
        int y1 = (int) Math.floor(Math.min(img.getHeight(), box[1] + box[3]) - 3);
        int all = 0;
        int same = 0;
        for (int y = y0; y < y1; y++) {
            for (int x = x0; x < x1; x++) {
                Color p = img.getPixelReader().getColor(x, y);
                all++;
                if (Math.abs(p.getRed() - c.getRed()) <= 0.03 && Math.abs(p.getGreen() - c.getGreen()) <= 0.03
                        && Math.abs(p.getBlue() - c.getBlue()) <= 0.03) {
                    same++;
                }
            }
        }
        assertTrue(all > 50, "a box of " + all + " pixels inside");
        return (double) same / all;
    }
}
