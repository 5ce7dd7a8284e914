package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The side panel's tab changes only when the user picks one: with the tab bar focused (after a
 * click on a tab's title), the arrow keys step the sweep or do nothing, never switch the tab. A
 * trial saw the Jacobian tab turn into the Node tab on its own: ↓ on the last tab wrapped round to
 * the first.
 */
class TabKeysWindowTest extends WindowFixture {

    @Test
    void arrowKeysOnTheFocusedTabBarKeepTheTab(FxRobot robot) {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        robot.clickOn("Jacobian");
        WaitForAsyncUtils.waitForFxEvents();
        assertSame(window.side(), stage.getScene().getFocusOwner(), "the tab bar has the focus (the case)");
        int cursor = sweep().cursor().get();
        for (KeyCode k : new KeyCode[] {KeyCode.DOWN, KeyCode.UP, KeyCode.DOWN, KeyCode.RIGHT, KeyCode.LEFT, KeyCode.RIGHT}) {
            robot.type(k);
            WaitForAsyncUtils.waitForFxEvents();
            assertEquals("Jacobian", readFx(() -> window.side().getSelectionModel().getSelectedItem().getText()), "after " + k);
        }
        assertEquals(cursor + 1, sweep().cursor().get(), "→ → ← stepped the sweep");
    }
}
