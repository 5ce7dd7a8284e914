package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.scene.input.KeyCode;
import javafx.scene.paint.Color;
import org.fxmisc.richtext.CodeArea;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Scrolled sideways, the text passes under the line-number gutter, never through it: the gutter
 * (error mark's slot and numbers) stays where it is and is drawn opaque over the text.
 */
class EditorGutterWindowTest extends WindowFixture {
    @Test
    void textScrolledSidewaysDoesNotShowThroughTheGutter(FxRobot robot) throws Exception {
        openAndWait(robot, Path.of("../assets/examples/mlp.grad"));
        CodeArea area = window.editor().area();
        robot.interact(() -> {
            area.setWrapText(false); // Edit → Wrap Long Lines unchecked: long lines run on
            area.requestFocus();
            area.moveTo(11, 0);
        });
        robot.type(KeyCode.END);
        WaitForAsyncUtils.waitForFxEvents();
        waitUntil("the editor scrolled sideways", () -> area.getEstimatedScrollX() > 40);
        settleLayout(robot);
        int[] dark = new int[2];
        robot.interact(() -> {
            WritableImage shot = area.snapshot(null, null);
            PixelReader px = shot.getPixelReader();
            Bounds areaBounds = area.localToScene(area.getBoundsInLocal());
            for (Node box : area.lookupAll(".paragraph-box")) {
                Node number = box.lookup(".lineno");
                if (number == null || !box.isVisible()) {
                    continue;
                }
                Bounds n = number.localToScene(number.getBoundsInLocal());
                Bounds b = box.localToScene(box.getBoundsInLocal());
                // Everything from the area's left edge to the numbers' right edge is the gutter.
                for (int y = (int) Math.ceil(n.getMinY() - areaBounds.getMinY()) + 1; y < n.getMaxY() - areaBounds.getMinY() - 1; y++) {
                    for (int x = (int) Math.max(0, b.getMinX() - areaBounds.getMinX()); x < n.getMaxX() - areaBounds.getMinX() - 1; x++) {
                        if (y < 0 || y >= shot.getHeight() || x >= shot.getWidth()) {
                            continue;
                        }
                        Color c = px.getColor(x, y);
                        dark[1]++;
                        // The program's text is near black; the numbers are light grey-blue, the mark red.
                        if (c.getBrightness() < 0.35) {
                            dark[0]++;
                        }
                    }
                }
            }
        });
        assertTrue(dark[1] > 500, "gutter pixels looked at: " + dark[1]);
        assertTrue(dark[0] == 0, dark[0] + " dark (text) pixels inside the gutter of " + dark[1]);
    }
}
