package io.gradscope.app.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.draw.Camera;
import io.gradscope.engine.trace.TraceGraph;
import org.junit.jupiter.api.Test;

/**
 * A model's outline (its modules folded, one under another, as an imported model opens) fills the
 * graph pane at Fit: resnet18's was a thin column a few boxes wide in a wide pane, its labels at the
 * painter's smallest size.
 */
class TallOutlineAtFitTest {
    /** The graph pane of the 1280x900 window (between the editor and the side tabs). */
    private static final double PANE_W = 510;
    private static final double PANE_H = 418;
    private static final String[] MODULES = {"conv1", "bn1", "relu", "maxpool", "layer1", "layer2", "layer3", "layer4", "avgpool",
        "flatten", "fc", "head", "norm", "out"};
    private static final String[] OPS = {"tanh", "sin", "sigmoid", "cos", "gelu"};

    @Test
    void anOutlineOfFoldedModulesWrapsIntoColumnsSoItsLabelsAreLargerAtFit() {
        // Fourteen modules in a chain, each different (nothing folds as a repeat).
        StringBuilder sb = new StringBuilder("x = input(4, 8)\n");
        String prev = "x";
        int n = 0;
        for (int m = 0; m < MODULES.length; m++) {
            sb.append("with group(\"").append(MODULES[m]).append("\"):\n");
            for (int k = 0; k <= m; k++) {
                String h = "h" + n++;
                sb.append("    ").append(h).append(" = ").append(OPS[(m + k) % OPS.length]).append("(").append(prev).append(")\n");
                prev = h;
            }
        }
        TraceGraph g = Programs.graph("outline.grad", sb.append("loss = sum(").append(prev).append(")\n").toString());
        Hierarchy h = Hierarchy.of(g);
        assertEquals(MODULES.length, h.outermost().size());
        GraphLayout.Result r = GraphLayout.layout(g, h.outermost());
        assertEquals(MODULES.length + 2, r.nodes().size(), "the outline: x, the modules, loss");
        // Not a column: as wide as tall within a factor of two.
        assertTrue(r.width() > r.height() / 2, r.width() + " x " + r.height());
        // Drawn larger at Fit than the same boxes in one column would be.
        double column = 0;
        double widest = 0;
        for (GraphLayout.DisplayNode d : r.nodes().values()) {
            column += d.box().h() + 36;
            widest = Math.max(widest, d.box().w());
        }
        Camera fit = camera();
        fit.fit(r.bounds());
        Camera asColumn = camera();
        asColumn.fit(new GraphLayout.Box(0, 0, widest, column));
        assertTrue(fit.scale() > 1.5 * asColumn.scale(), "at Fit " + fit.scale() + ", as a column " + asColumn.scale());
        assertTrue(fit.scale() >= io.gradscope.app.draw.FitTarget.READABLE_SCALE,
                "labels " + TextWidth.SIZE * fit.scale() + " px at Fit, " + TextWidth.SIZE * asColumn.scale() + " px as a column");
    }

    private static Camera camera() {
        Camera c = new Camera();
        c.resize(PANE_W, PANE_H);
        return c;
    }
}
