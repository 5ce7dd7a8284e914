package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.viewmodel.JacobianViewModel;
import java.nio.file.Path;
import javafx.geometry.Bounds;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 45, 4: at the window's least size, 1024 x 700, the Jacobian tab's spy plot is in view
 * without scrolling (all of it inside the panel's viewport, the panel scrolled to its top), with a
 * nonzero picked (its value, path and why shown too).
 */
class JacobianFoldWindowTest extends WindowFixture {
    @Test
    void theSpyPlotIsInViewAt1024By700(FxRobot robot) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        resizeWindow(robot, 1024, 700);
        JacobianViewModel j = vm().jacobian();
        robot.interact(() -> {
            window.side().getSelectionModel().select(window.side().getTabs().stream()
                    .filter(t -> "tab-jacobian".equals(t.getId())).findFirst().orElseThrow());
            j.setOutput(sweep().recorded().get().find("h"));
        });
        waitUntil("the Jacobian", () -> !j.running().get() && j.result().get() != null);
        robot.interact(() -> j.pick(0, j.result().get().pattern().row(0)[0]));
        settleLayout(robot);
        WaitForAsyncUtils.waitForFxEvents();
        JacobianPanel panel = window.side().jacobianPanel();
        assertNotNull(j.picked().get());
        assertEquals(0, panel.getVvalue(), 1e-9, "scrolled to the top");
        Bounds view = panel.localToScene(panel.getLayoutBounds());
        Bounds spy = panel.spy().localToScene(panel.spy().getLayoutBounds());
        assertTrue(spy.getHeight() >= 120 && spy.getWidth() >= 120, "a plot to read: " + spy);
        assertTrue(spy.getMinY() >= view.getMinY() && spy.getMaxY() <= view.getMaxY() - 1, "the plot " + spy + " is inside the panel's view "
                + view + " at " + window.getWidth() + " x " + window.getHeight());
    }
}
