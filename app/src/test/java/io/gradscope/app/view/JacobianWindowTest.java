package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.JacobianResult;
import io.gradscope.app.viewmodel.JacobianViewModel;
import io.gradscope.app.viewmodel.Sweep;
import io.gradscope.engine.jacobian.Jacobians;
import io.gradscope.engine.jacobian.ProgramJacobians;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.sparse.MatrixMarket;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.DType;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javafx.geometry.Point2D;
import javafx.scene.input.MouseButton;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** The Jacobian view in the window (TestFX + Monocle): the MLP's hidden layer, against the engine's dense Jacobian. */
class JacobianWindowTest extends WindowFixture {
    private static final Path MLP = Path.of("../assets/examples/mlp.grad");

    private JacobianViewModel jacobian() {
        return window.viewModel().jacobian();
    }

    private JacobianResult waitForJacobian() throws Exception {
        WaitForAsyncUtils.waitForFxEvents();
        waitUntil(() -> !jacobian().running().get());
        WaitForAsyncUtils.waitForFxEvents();
        assertNotNull(jacobian().result().get(), jacobian().note().get());
        return jacobian().result().get();
    }

    @Test
    void theReluNodesSpyPlotShowsItsNonzerosAndClickingOneLightsAPathToTheLeaf(FxRobot robot, @TempDir Path tmp) throws Exception {
        robot.interact(() -> window.viewModel().open(MLP));
        waitUntil(() -> window.viewModel().sweep().recorded().get() != null
                && !window.viewModel().running().get());
        Sweep s = window.viewModel().sweep().recorded().get();
        int h = s.find("h");
        int w1 = s.find("W1");
        var graph = window.graphPanel();
        waitUntil(() -> graph.boxOnScreen("v" + h) != null && graph.canvas().getWidth() > 0);
        WaitForAsyncUtils.waitForFxEvents();
        // The relu node's context menu: Show Jacobian opens the tab on h with respect to W1.
        double[] box = graph.boxOnScreen("v" + h);
        robot.clickOn(graph.canvas().localToScreen(box[0] + box[2] / 2, box[1] + box[3] / 2), MouseButton.SECONDARY);
        ForwardModeWindowTest.chooseInMenu(robot, "Show Jacobian");
        assertEquals("tab-jacobian", window.side().getSelectionModel().getSelectedItem().getId());
        JacobianResult r = waitForJacobian();
        assertEquals(h, r.request().of());
        assertEquals("W1", r.request().wrt());
        JacobianPanel panel = window.side().jacobianPanel();
        // Global: h[r, k] depends on the 20 entries of column k of W1, whatever the values.
        assertEquals(32 * 64 * 20, panel.spy().shownNonzeros());
        assertTrue(robot.lookup("#jacobian-summary").queryLabeled().getText().contains("40960 nonzeros"));
        // Local, chosen in the panel: the nonzeros of the engine's dense Jacobian (dead ReLUs zero their rows).
        robot.clickOn("#jacobian-pattern");
        robot.clickOn("local");
        r = waitForJacobian();
        SparseMatrix dense = Jacobians.denseByRows(ProgramJacobians.of(Program.load(MLP),
                new RunOptions(DType.FLOAT64, 0, Map.of()), "h", "W1"));
        int expected = dense.nonzeros().nnz();
        assertTrue(expected < 40960 && expected > 0);
        assertEquals(expected, r.pattern().nnz());
        assertEquals(expected, panel.spy().shownNonzeros());
        assertTrue(robot.lookup("#jacobian-summary").queryLabeled().getText().contains(expected + " nonzeros"));
        // Click a nonzero in the spy plot: its value, and its path W1 → … → h lit in the graph.
        Pattern p = r.pattern();
        int i = p.rows() / 2;
        while (p.rowCount(i) == 0) {
            i++;
        }
        int j = p.row(i)[p.rowCount(i) / 2];
        double[] at = panel.spy().pixelOf(i, j);
        // The panel scrolls (the spy plot can be below the fold in a 780-px window): the nonzero is brought
        // into view first, as a user would scroll to it.
        robot.interact(() -> {
            double y = panel.getContent().sceneToLocal(panel.spy().localToScene(at[0], at[1])).getY();
            double view = panel.getViewportBounds().getHeight();
            double room = panel.getContent().getLayoutBounds().getHeight() - view;
            panel.setVvalue(room <= 0 ? 0 : Math.max(0, Math.min(1, (y - view / 2) / room)) * panel.getVmax());
        });
        WaitForAsyncUtils.waitForFxEvents();
        Point2D screen = panel.spy().localToScreen(at[0], at[1]);
        assertTrue(panel.localToScreen(panel.getLayoutBounds()).contains(screen), "the nonzero is in the panel's view: " + screen);
        robot.clickOn(screen);
        WaitForAsyncUtils.waitForFxEvents();
        JacobianViewModel.Pick pick = jacobian().picked().get();
        assertNotNull(pick, "a click on the plot picks a nonzero");
        assertTrue(p.contains(pick.i(), pick.j()));
        assertEquals(Math.abs(pick.i() - i) <= 10 && Math.abs(pick.j() - j) <= 10, true, "the nonzero near the click");
        assertEquals(dense.get(pick.i(), pick.j()), pick.value(), 1e-12);
        assertEquals(w1, pick.vertices().get(0), "the path ends at the leaf W1");
        assertEquals(h, pick.vertices().get(pick.vertices().size() - 1));
        assertEquals(JacobianViewModel.PATH_PAINT.stroke(), graph.scene().look("v" + w1).stroke(), "W1 is lit in the graph");
        assertEquals(JacobianViewModel.PATH_PAINT.fill(), graph.scene().look("v" + h).fill(), "h (selected: outlined blue) too");
        assertTrue(!graph.scene().look("v" + s.find("b1")).stroke().equals(JacobianViewModel.PATH_PAINT.stroke()), "b1 is not");
        assertTrue(robot.lookup("#jacobian-pick").queryLabeled().getText().contains("via W1 → matmul → add → relu (h)"));
        // Export: the pattern reads back from Matrix Market; the PNG is the plot's size.
        Path mtx = tmp.resolve("pattern.mtx");
        Path png = tmp.resolve("spy.png");
        robot.interact(() -> {
            try {
                panel.exportMtx(mtx);
                panel.exportPng(png);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertEquals(r.pattern(), MatrixMarket.read(mtx).pattern());
        BufferedImage img = javax.imageio.ImageIO.read(png.toFile());
        assertEquals(panel.spy().getWidth(), img.getWidth(), 1, "the PNG's width");
        assertTrue(Files.size(png) > 0);
        // The wheel zooms in about the pointer (a positive deltaY: TestFX's DOWN on the glass robot): fewer nonzeros in view.
        robot.moveTo(screen);
        robot.scroll(5, javafx.geometry.VerticalDirection.DOWN);
        WaitForAsyncUtils.waitForFxEvents();
        int inView = panel.spy().shownNonzeros();
        assertTrue(inView > 0 && inView < expected, "zoomed: " + inView + " of " + expected);
        // Selecting another node while the tab is open shows its Jacobian (with respect to the same leaf).
        int logits = s.find("logits");
        robot.interact(() -> window.viewModel().sweep().select(logits));
        r = waitForJacobian();
        assertEquals(logits, r.request().of());
        assertEquals("W1", r.request().wrt());
        assertEquals(320, r.rows());
        assertEquals(r.pattern().nnz(), panel.spy().shownNonzeros());
    }
}
