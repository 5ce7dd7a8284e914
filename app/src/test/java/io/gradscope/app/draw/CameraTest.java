package io.gradscope.app.draw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.app.layout.GraphLayout;
import io.gradscope.app.layout.Programs;
import io.gradscope.engine.trace.TraceGraph;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Fit shows every node of every graph; zoom reaches readable labels from any fit. */
class CameraTest {

    static List<GraphLayout.Result> layouts() throws IOException {
        List<GraphLayout.Result> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("../assets/examples"), 2)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".grad")).sorted().toList()) {
                out.add(GraphLayout.layout(Programs.example(Path.of("../assets/examples").relativize(p).toString()), Set.of()));
            }
        }
        TraceGraph chain = Programs.graph("chain.grad", Programs.residualChain(150));
        GraphLayout layouts = GraphLayout.of(chain);
        out.add(layouts.layout(layouts.hierarchy().runs()));
        out.add(layouts.layout(Set.of()));
        return out;
    }

    @Test
    void afterFitEveryNodeLiesInsideTheViewport() throws IOException {
        double[][] sizes = {{560, 690}, {1200, 800}, {300, 900}, {900, 200}};
        for (GraphLayout.Result l : layouts()) {
            for (double[] size : sizes) {
                Camera c = new Camera();
                c.resize(size[0], size[1]);
                c.zoomAt(7, 13, 17); // wherever it looked before
                c.panBy(-400, 250);
                c.fit(l.bounds());
                for (GraphLayout.DisplayNode d : l.nodes().values()) {
                    GraphLayout.Box b = d.box();
                    assertTrue(c.toPxX(b.x()) >= 0 && c.toPxY(b.y()) >= 0 && c.toPxX(b.x() + b.w()) <= size[0]
                            && c.toPxY(b.y() + b.h()) <= size[1], d.key() + " in view of " + size[0] + "x" + size[1]);
                }
                for (GraphLayout.GroupBox g : l.groups()) {
                    assertTrue(c.shows(g.box()), g.path());
                }
            }
        }
    }

    @Test
    void zoomFromAnyFitReachesFullSizeLabels() {
        TraceGraph chain = Programs.graph("chain.grad", Programs.residualChain(2000 / 5));
        GraphLayout.Result l = GraphLayout.layout(chain, Set.of());
        Camera c = new Camera();
        c.resize(560, 690);
        c.fit(l.bounds());
        assertTrue(c.scale() < 0.1, "a large graph fits small: " + c.scale());
        int steps = 0;
        while (c.scale() < 1 && steps < 100) {
            c.zoom(1.25);
            steps++;
        }
        assertTrue(c.scale() >= 1, "labels at full size after " + steps + " zoom steps");
        for (int i = 0; i < 20; i++) {
            c.zoom(1.25);
        }
        assertTrue(c.scale() > 20, "and further: " + c.scale());
    }

    @Test
    void zoomKeepsThePointUnderTheMouseAndPanFollowsIt() {
        Camera c = new Camera();
        c.resize(800, 600);
        c.fit(new GraphLayout.Box(0, 0, 1000, 1000));
        double x = c.toLayoutX(100);
        double y = c.toLayoutY(500);
        c.zoomAt(3, 100, 500);
        assertEquals(100, c.toPxX(x), 1e-9);
        assertEquals(500, c.toPxY(y), 1e-9);
        c.panBy(30, -20);
        assertEquals(130, c.toPxX(x), 1e-9);
        assertEquals(480, c.toPxY(y), 1e-9);
    }

    @Test
    void aViewIsAtFitUntilItIsZoomedMovedOrItsAreaChanges() {
        Camera c = new Camera();
        GraphLayout.Box b = new GraphLayout.Box(10, 20, 1000, 700);
        c.resize(800, 600);
        c.fit(b);
        assertTrue(c.isFitTo(b));
        c.resize(800, 500);
        assertFalse(c.isFitTo(b), "a smaller area fits smaller");
        c.fit(b);
        c.zoom(1.25);
        assertFalse(c.isFitTo(b), "zoomed");
        c.fit(b);
        c.panBy(5, 0);
        assertFalse(c.isFitTo(b), "moved");
    }
}
