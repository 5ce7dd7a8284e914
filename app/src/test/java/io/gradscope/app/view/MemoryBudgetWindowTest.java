package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.recompute.RematPolicy;
import java.nio.file.Path;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Slider;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/** The budget choice runs at once (the curve's ring is the budget, not the last policy) and its slider says its value. */
class MemoryBudgetWindowTest extends WindowFixture {

    @Test
    @SuppressWarnings("unchecked")
    void choosingBudgetRunsItAndTheSliderShowsItsBytes(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/residual_checkpoint.grad"));
        robot.interact(() -> ((ComboBox<String>) robot.lookup("#memory-policy").query()).setValue("sqrt"));
        waitUntil("the sqrt run", () -> !vm().running().get() && vm().memory().track().get() != null
                && sweep().recorded().get().run().memory().policy().kind() == RematPolicy.Kind.SQRT);
        long sqrtPeak = readFx(() -> vm().memory().track().get().timeline().peakBytes());
        double fraction = readFx(() -> ((Slider) robot.lookup("#memory-budget").query()).getValue());
        robot.interact(() -> ((ComboBox<String>) robot.lookup("#memory-policy").query()).setValue("budget"));
        waitUntil("the budget run", () -> !vm().running().get() && sweep().recorded().get() != null
                && sweep().recorded().get().run().memory().policy().kind() == RematPolicy.Kind.BUDGET);
        long expected = (long) (sqrtPeak * fraction);
        assertEquals(RematPolicy.budget(expected), readFx(() -> sweep().recorded().get().run().memory().policy()));
        assertEquals("budget " + HeapLimit.human(expected), readFx(() -> robot.lookup("#memory-budget-value").queryLabeled().getText()));
        assertEquals("budget", readFx(() -> ((ComboBox<String>) robot.lookup("#memory-policy").query()).getValue()));
        // Dragged, the label says the budget it will run before the run.
        robot.interact(() -> ((Slider) robot.lookup("#memory-budget").query()).setValue(0.5));
        long peak = readFx(() -> vm().memory().track().get().timeline().peakBytes());
        assertEquals("budget " + HeapLimit.human((long) (peak * 0.5)), readFx(() -> robot.lookup("#memory-budget-value").queryLabeled().getText()));
    }
}
