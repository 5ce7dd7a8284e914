package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import javafx.scene.control.ButtonBase;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuItem;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * With no run on screen (a program that does not parse), what needs a run is disabled, as the transport
 * is: Compare's two buttons, Debug's Check Gradients and its two comparisons, the memory panel's
 * Trade-off curve. They were enabled and did nothing, saying nothing (trial 4, finding 13). A run
 * enables them again.
 */
class NoRunControlsWindowTest extends WindowFixture {

    @Test
    void whatNeedsARunIsDisabledWithoutOne(FxRobot robot) {
        openText(robot, "bad.grad", "x = input(4, 8)\nw = param(8, 3\nloss = sum(x @ w)\n");
        assertNull(sweep().recorded().get(), "no run");
        robot.interact(() -> window.side().showCompare());
        settleLayout(robot);
        List<ButtonBase> controls = controls(robot);
        assertTrue(readFx(() -> controls.stream().allMatch(ButtonBase::isDisabled)), "the buttons disabled with no run");
        assertEquals(3, readFx(() -> debugItems().size()), "Check Gradients and the two comparisons in the Debug menu");
        assertTrue(readFx(() -> debugItems().stream().allMatch(MenuItem::isDisable)), "the Debug items disabled with no run");
        openText(robot, "good.grad", "x = input(4, 8)\nw = param(8, 3)\nloss = sum(x @ w)\n");
        assertTrue(sweep().recorded().get() != null, "a run");
        assertFalse(readFx(() -> controls.stream().anyMatch(ButtonBase::isDisabled)), "the buttons enabled with a run");
        assertFalse(readFx(() -> debugItems().stream().anyMatch(MenuItem::isDisable)), "the Debug items enabled with a run");
    }

    private List<ButtonBase> controls(FxRobot robot) {
        return List.of(robot.lookup("#compare-dtypes").queryAs(ButtonBase.class), robot.lookup("#compare-previous").queryAs(ButtonBase.class),
                robot.lookup("#memory-tradeoff-toggle").queryAs(ButtonBase.class));
    }

    private List<MenuItem> debugItems() {
        Menu debug = ((javafx.scene.control.MenuBar) window.lookup(".menu-bar")).getMenus().stream()
                .filter(m -> "debug-menu".equals(m.getId())).findFirst().orElseThrow();
        return debug.getItems().stream().filter(i -> i.getText() != null && List.of("Check Gradients", "Compare float32 with float64", "Compare with Previous Run")
                .contains(i.getText())).toList();
    }
}
