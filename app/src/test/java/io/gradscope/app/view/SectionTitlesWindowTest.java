package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.draw.Camera;
import io.gradscope.app.layout.GraphLayout;
import java.util.List;
import java.util.stream.Collectors;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.util.WaitForAsyncUtils;

/**
 * After Find opens a section wider than the view, the section's title reads from the view's left
 * edge: it was drawn at the box's left edge, off screen, so the opened section had no name.
 */
class SectionTitlesWindowTest extends WindowFixture {

    @Test
    void aSectionWhoseLeftEdgeIsOffScreenShowsItsTitleInTheView(FxRobot robot) {
        openText(robot, "chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        robot.interact(() -> window.graphPanel().fit());
        robot.interact(() -> ((TextField) robot.lookup("#find").query()).setText("h700"));
        robot.clickOn("#find");
        robot.type(KeyCode.ENTER);
        WaitForAsyncUtils.waitForFxEvents();
        GraphPanel panel = window.graphPanel();
        waitUntil("the found node's section opened", () -> panel.currentLayout() == sweep().layout().get()
                && !panel.currentLayout().groups().isEmpty());
        robot.interact(() -> {
            Camera camera = panel.camera();
            // The outermost opened section, its left edge 120 px off screen and its title band in view.
            GraphLayout.GroupBox outer = panel.currentLayout().groups().stream()
                    .max(java.util.Comparator.comparingDouble(g -> g.box().w() * g.box().h())).orElseThrow();
            GraphLayout.Box b = outer.box();
            camera.centerOn(b.x() + (camera.width() / 2 + 120) / camera.scale(), b.y() + (camera.height() / 2 - 60) / camera.scale());
            panel.drawNow();
            assertTrue(camera.toPxX(b.x()) < -100 && camera.toPxX(b.x() + b.w()) > 200,
                    "the section runs from off screen into the view: " + camera.toPxX(b.x()) + " to " + camera.toPxX(b.x() + b.w()));
            List<DrawnText> titles = DrawnText.of(panel).stream().filter(t -> "group".equals(t.kind()) && outer.path().equals(t.id()))
                    .collect(Collectors.toList());
            assertFalse(titles.isEmpty(), "the section " + outer.path() + " (" + outer.name() + ") has a title drawn");
            for (DrawnText t : titles) {
                assertTrue(t.x() >= 0 && t.x() < camera.width() && t.y() >= 0 && t.y() < camera.height(),
                        "the title '" + t.text() + "' starts in the view: at " + t.x() + ", " + t.y());
            }
        });
    }
}
