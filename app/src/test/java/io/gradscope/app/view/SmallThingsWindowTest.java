package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.layout.GraphLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/** A new user's small findings: Run → Cancel, a failed open's status, Collapse All and Fit, the scalars window's keys. */
class SmallThingsWindowTest extends WindowFixture {

    private MenuItem runMenuItem(FxRobot robot, String text) {
        MenuBar bar = robot.lookup(".menu-bar").queryAs(MenuBar.class);
        for (Menu m : bar.getMenus()) {
            if (m.getText().equals("Run")) {
                for (MenuItem i : m.getItems()) {
                    if (text.equals(i.getText())) {
                        return i;
                    }
                }
            }
        }
        throw new AssertionError("no Run → " + text);
    }

    @Test
    void runCancelIsDisabledWhileNothingRuns(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        assertTrue(readFx(() -> runMenuItem(robot, "Cancel").isDisable()), "Cancel with nothing running");
        assertFalse(readFx(() -> runMenuItem(robot, "Run").isDisable()));
    }

    @Test
    void aFailedOpenLeavesTheStatusLineOnceTheUserSteps(FxRobot robot, @TempDir Path tmp) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        String ran = readFx(() -> vm().status().get());
        assertTrue(ran.startsWith("Ran mlp.grad"), ran);
        Path binary = Files.write(tmp.resolve("binary.grad"), new byte[] {(byte) 0xff, (byte) 0xd8, 0, 17, '\n'});
        robot.interact(() -> vm().open(binary));
        assertTrue(readFx(() -> vm().status().get()).startsWith("Cannot open"), "said once");
        robot.interact(() -> window.graphPanel().requestFocus());
        robot.type(KeyCode.RIGHT);
        WaitForAsyncUtils.waitForFxEvents();
        assertEquals(ran, readFx(() -> vm().status().get()), "after a step, the run's line again");
    }

    @Test
    void collapseAllFitsTheGraphAgain(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        GraphPanel panel = window.graphPanel();
        robot.interact(() -> {
            sweep().expandAll();
        });
        waitUntil("expanded", () -> panel.currentLayout() == sweep().layout().get() && sweep().layout().get().collapsed().isEmpty());
        robot.interact(() -> {
            panel.zoomIn();
            panel.zoomIn();
            panel.zoomIn();
        });
        GraphLayout.Result before = readFx(() -> sweep().layout().get());
        robot.interact(() -> sweep().collapseAll());
        waitUntil("collapsed", () -> sweep().layout().get() != before && panel.currentLayout() == sweep().layout().get());
        assertTrue(readFx(() -> panel.camera().isFitTo(panel.currentLayout().bounds())), "at Fit after Collapse All");
    }

    @Test
    void escapeAndCtrlWCloseTheScalarsWindow(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        for (int i = 0; i < 2; i++) {
            Stage[] s = new Stage[1];
            robot.interact(() -> s[0] = window.nodeMenu().expand(sweep().recorded().get().graph().vertices().size() - 1));
            assertNotNull(s[0]);
            waitUntil("the scalars window shown", () -> s[0].isShowing() && s[0].isFocused());
            if (i == 0) {
                robot.type(KeyCode.ESCAPE);
            } else {
                ctrl(robot, KeyCode.W);
            }
            WaitForAsyncUtils.waitForFxEvents();
            assertFalse(readFx(s[0]::isShowing), i == 0 ? "Esc closes it" : "Ctrl+W closes it");
        }
    }

    @Test
    void theTransportBarsControlsKeepTheirPlaceWhenPlayingAndAtAnySpeed(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        javafx.scene.Node step = robot.lookup(".button").match((javafx.scene.Node n) -> n instanceof javafx.scene.control.Labeled l
                && "Step ▶".equals(l.getText())).query();
        javafx.scene.Node speedLabel = robot.lookup("#transport-speed").query();
        javafx.scene.control.Slider speed = robot.lookup(".slider").queryAs(javafx.scene.control.Slider.class);
        robot.interact(() -> speed.setValue(1.1));
        settleLayout(robot);
        double stepAt = readFx(() -> step.localToScene(step.getLayoutBounds()).getMinX());
        double labelEnd = readFx(() -> speedLabel.localToScene(speedLabel.getLayoutBounds()).getMaxX());
        robot.interact(() -> {
            speed.setValue(20);
            sweep().play();
        });
        settleLayout(robot);
        double stepPlaying = readFx(() -> step.localToScene(step.getLayoutBounds()).getMinX());
        double labelEndFast = readFx(() -> speedLabel.localToScene(speedLabel.getLayoutBounds()).getMaxX());
        robot.interact(() -> sweep().pause());
        assertEquals(stepAt, stepPlaying, 0.5, "Step stays where it was when Play becomes Pause");
        assertEquals(labelEnd, labelEndFast, 0.5, "the speed's label keeps its width from 1.1 to 20.0 steps/s");
    }
}
