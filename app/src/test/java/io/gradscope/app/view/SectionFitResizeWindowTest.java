package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.cli.BenchUiPrograms;
import io.gradscope.app.draw.Camera;
import io.gradscope.app.layout.GraphLayout;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * A view at Fit stays at Fit when the graph's area changes size (the window, a panel), also when Fit
 * shows the opened section (a large graph): the view had kept its scale and place, the section's title
 * and its left part cut at the pane's edges (trial 4, finding 3).
 */
class SectionFitResizeWindowTest extends WindowFixture {

    @Test
    void theSectionFitShowsStaysFittedWhenTheGraphNarrows(FxRobot robot) {
        openText(robot, "chain.grad", BenchUiPrograms.program(BenchUiPrograms.Shape.CHAIN, 1200));
        double width = stage.getWidth();
        double height = stage.getHeight();
        GraphPanel panel = window.graphPanel();
        try {
            // At the window's least size Fit shows the section the step opened (OverviewRoomWindowTest).
            resizeWindow(robot, 1024, 700);
            stepIntoSectionAtFit(robot);
            settleLayout(robot);
            robot.interact(() -> {
                panel.fitAsked();
                panel.drawNow();
            });
            String section = readFx(() -> shownWhole(panel));
            assertNotNull(section, "Fit shows a section holding the step's node whole");
            assertTrue(readFx(() -> !panel.camera().isFitTo(panel.currentLayout().bounds())), "Fit shows the section, not everything");
            // The graph's area narrows (the side panel widened, as the window narrowing does).
            double before = readFx(() -> panel.camera().width());
            robot.interact(() -> {
                javafx.scene.control.SplitPane split = (javafx.scene.control.SplitPane) window.getCenter();
                split.setDividerPosition(1, split.getDividerPositions()[1] - 0.08);
            });
            settleLayout(robot);
            waitUntil("the graph narrower", () -> panel.camera().width() < before - 40);
            robot.interact(panel::drawNow);
            String after = readFx(() -> shownWhole(panel));
            assertTrue(section.equals(after) || after != null && section.startsWith(after + "/") || after != null && after.startsWith(section),
                    "the section " + section + " still shown whole after the graph narrowed, inside " + readFx(() -> panel.camera().width()) + " x "
                    + readFx(() -> panel.camera().height()) + ": " + after);
        } finally {
            restoreSize(robot, width, height);
        }
    }

    /** The innermost section holding the step's node that is in view whole, or null. */
    private String shownWhole(GraphPanel panel) {
        Camera camera = panel.camera();
        double[] n = panel.scene().box(panel.scene().indexOf(sweep().keyOf(sweep().currentVertex())));
        String found = null;
        double area = Double.MAX_VALUE;
        for (GraphLayout.GroupBox g : panel.currentLayout().groups()) {
            GraphLayout.Box b = g.box();
            boolean holds = b.x() <= n[0] && b.y() <= n[1] && b.x() + b.w() >= n[0] + n[2] && b.y() + b.h() >= n[1] + n[3];
            double x0 = camera.toPxX(b.x());
            double y0 = camera.toPxY(b.y());
            boolean inView = x0 >= -0.5 && y0 >= -0.5 && x0 + b.w() * camera.scale() <= camera.width() + 0.5
                    && y0 + b.h() * camera.scale() <= camera.height() + 0.5;
            if (holds && inView && b.w() * b.h() < area) {
                found = g.path();
                area = b.w() * b.h();
            }
        }
        return found;
    }
}
