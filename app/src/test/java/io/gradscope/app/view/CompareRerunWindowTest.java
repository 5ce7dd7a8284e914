package io.gradscope.app.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.draw.Camera;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;

/**
 * After Compare with Previous Run and a run again, the graph is drawn as before the comparison: the
 * loss node said "loss" instead of "loss = sum []", the whole graph left at the smaller scale Fit gave
 * while the comparison's legend took a strip of its area.
 */
class CompareRerunWindowTest extends WindowFixture {
    static final String PROGRAM = "x = input(4, 8)\nw = param(8, 3)\nh = relu(x @ w)\nloss = sum(h)\n";

    @Test
    void aRunAfterAComparisonIsFittedToTheWholeGraphArea(FxRobot robot) {
        openText(robot, "small.grad", PROGRAM);
        Camera camera = window.graphPanel().camera();
        settleLayout(robot);
        double[] before = readFx(() -> new double[] {camera.scale(), camera.width(), camera.height()});
        java.util.List<String> drawn = readFx(() -> texts(window.graphPanel()));
        String loss = drawn.stream().filter(t -> t.startsWith("loss = sum []@")).findFirst().orElse(null);
        assertTrue(loss != null, "the loss's label in full: " + drawn);
        robot.interact(() -> window.editor().area().replaceText(PROGRAM.replace("relu", "tanh")));
        rerun(robot);
        robot.interact(() -> vm().diagnostics().compareWithPrevious());
        waitUntil("the comparison shown", () -> vm().diagnostics().overlay().get() == io.gradscope.app.viewmodel.OverlayViewModel.Overlay.DIFFERENCE);
        settleLayout(robot);
        double during = readFx(camera::height);
        assertTrue(during < before[2], "the legend takes a strip of the graph's area: " + during + " < " + before[2]);
        rerun(robot);
        settleLayout(robot);
        double[] after = readFx(() -> new double[] {camera.scale(), camera.width(), camera.height()});
        assertEquals(before[2], after[2], 0.5, "the legend gone, the area is whole again");
        assertEquals(before[0], after[0], 1e-9, "fitted to the whole area, as before the comparison");
        java.util.List<String> again = readFx(() -> texts(window.graphPanel()));
        assertTrue(again.contains(loss), "the loss's label as before (" + loss + "): " + again);
    }

    /** What the graph draws as text, with its size ("loss = sum []@15.6"). */
    static java.util.List<String> texts(GraphPanel panel) {
        return DrawnText.of(panel).stream().map(t -> t.text() + "@" + t.size()).toList();
    }

    private void rerun(FxRobot robot) {
        Object recorded = readFx(() -> sweep().recorded().get());
        robot.interact(() -> vm().run());
        waitUntil("the run again", () -> !vm().running().get() && sweep().recorded().get() != recorded
                && window.graphPanel().currentLayout() == sweep().layout().get());
    }
}
