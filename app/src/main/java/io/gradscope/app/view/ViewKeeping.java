package io.gradscope.app.view;

import io.gradscope.app.draw.Camera;
import io.gradscope.app.layout.GraphLayout;
import java.util.HashSet;
import java.util.Set;

/**
 * Where the graph's view goes when something changes under it: a container collapsed or expanded
 * stays where it was on screen, and the node the user follows (the current step's, the selected one)
 * stays in view and clear of the overview map in the corner.
 */
final class ViewKeeping {
    /** The margin kept round a followed node inside the view, in pixels. */
    static final double VIEW_MARGIN = 40;
    /** The gap kept between a followed node and the overview map, in pixels. */
    static final double MAP_GAP = 12;

    private ViewKeeping() {
    }

    /** The containers collapsed in one layout and not in the other. */
    static Set<String> changed(GraphLayout.Result before, GraphLayout.Result after) {
        Set<String> changed = new HashSet<>(before.collapsed());
        changed.addAll(after.collapsed());
        Set<String> both = new HashSet<>(before.collapsed());
        both.retainAll(after.collapsed());
        changed.removeAll(both);
        return changed;
    }

    /** After a collapse or expand: the container that changed stays where it was on screen. */
    static void keepInPlace(Camera camera, GraphLayout.Result before, GraphLayout.Result after) {
        for (String id : changed(before, after)) {
            GraphLayout.Box a = boxOf(before, id);
            GraphLayout.Box b = boxOf(after, id);
            if (a != null && b != null) {
                camera.centerOn(camera.centerX() + b.x() - a.x(), camera.centerY() + b.y() - a.y());
                return;
            }
        }
    }

    /**
     * Pans so that {@code box} is in view and, when the map is shown ({@code map}: its rectangle x0, y0,
     * x1, y1 in the pane's pixels; null when hidden), clear of it; true when it moved.
     */
    static boolean keepInView(Camera camera, GraphLayout.Box box, double[] map) {
        boolean moved = camera.ensureVisible(box, VIEW_MARGIN);
        return keepClearOfMap(camera, box, map) || moved;
    }

    /** Pans, if need be, so that {@code box} is clear of the map (its rectangle in the pane's pixels; null: hidden); true when it moved. */
    static boolean keepClearOfMap(Camera camera, GraphLayout.Box box, double[] map) {
        if (map == null) {
            return false;
        }
        return camera.keepClear(box, map[0], map[1], map[2], map[3], MAP_GAP);
    }

    private static GraphLayout.Box boxOf(GraphLayout.Result l, String id) {
        GraphLayout.DisplayNode d = l.nodes().get("g:" + id);
        if (d != null) {
            return d.box();
        }
        for (GraphLayout.GroupBox g : l.groups()) {
            if (g.path().equals(id)) {
                return g.box();
            }
        }
        return null;
    }
}
