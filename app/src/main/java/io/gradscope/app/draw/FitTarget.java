package io.gradscope.app.draw;

import io.gradscope.app.layout.GraphLayout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What the user's Fit shows. The whole graph when its nodes can be read at the scale that shows it
 * all. When they cannot because sections are open (a long program with a section opened by Find or
 * a double-click), everything at that scale is an unlabelled grey texture, so Fit shows the opened
 * section the user works in instead: of the opened sections around the node followed (else around
 * the one opened last), the largest still readable at Fit, else the innermost's beginning at 1:1. Fit once more, on
 * that, shows the whole graph: the outline of everything is one press away, as before.
 */
public final class FitTarget {
    /**
     * The smallest scale read as readable: a node (30 layout px high) still holds an 8 px label
     * (the painter's smallest), in full where its box is wide enough, else briefly (the name or op).
     */
    public static final double READABLE_SCALE = 0.3;

    private FitTarget() {
    }

    /** What Fit shows ({@code target}, layout units) and where on screen ({@code area}, the viewport's pixels). */
    public record Shown(GraphLayout.Box target, GraphLayout.Box area) {
    }

    /**
     * The area Fit shows, with the whole viewport to show it in.
     *
     * @param anchor the drawn box of the node followed, or null
     * @param lastOpened the section the user opened last (its path), or null
     */
    public static GraphLayout.Box choose(Camera camera, GraphLayout.Result r, GraphLayout.Box anchor, String lastOpened) {
        return choose(camera, r, anchor, lastOpened, null).target();
    }

    /**
     * The area Fit shows and where. The whole graph fills the viewport (nothing is out of view, so no
     * overview map is shown); a part of it leaves {@code corner} free, the bottom-right corner the
     * map takes while part of the graph is out of view ({width, height} in pixels; null: none): it
     * goes beside the map or above it, whichever shows it larger.
     */
    public static Shown choose(Camera camera, GraphLayout.Result r, GraphLayout.Box anchor, String lastOpened, double[] corner) {
        GraphLayout.Box all = r.bounds();
        Shown whole = new Shown(all, camera.viewport());
        if (camera.fitScale(all) >= READABLE_SCALE || r.groups().isEmpty()) {
            return whole;
        }
        List<GraphLayout.Box> around = around(r, anchor);
        if (around.isEmpty() && lastOpened != null) {
            for (GraphLayout.GroupBox g : r.groups()) {
                if (g.path().equals(lastOpened)) {
                    around = around(r, g.box());
                }
            }
        }
        if (around.isEmpty()) {
            return whole;
        }
        GraphLayout.Box target = around.get(around.size() - 1);
        for (GraphLayout.Box b : around) {
            if (camera.fitScale(b, room(camera, b, corner)) >= READABLE_SCALE) {
                target = b;
                break;
            }
        }
        GraphLayout.Box area = room(camera, target, corner);
        if (camera.fitScale(target, area) < READABLE_SCALE) {
            // Even the innermost is too large to read whole (1,999 repeated blocks unfolded into a
            // grid): its beginning at 1:1, as a long document opens at its top; the overview map
            // shows where that is.
            target = new GraphLayout.Box(target.x(), target.y(), Math.min(target.w(), area.w() - 2 * Camera.FIT_MARGIN),
                    Math.min(target.h(), area.h() - 2 * Camera.FIT_MARGIN));
        }
        return camera.isFitTo(target, area) ? whole : new Shown(target, area);
    }

    /** The part of the viewport a part of the graph is fitted into: beside or above the corner, whichever shows {@code b} larger. */
    private static GraphLayout.Box room(Camera camera, GraphLayout.Box b, double[] corner) {
        if (corner == null) {
            return camera.viewport();
        }
        GraphLayout.Box beside = new GraphLayout.Box(0, 0, Math.max(1, camera.width() - corner[0]), camera.height());
        GraphLayout.Box above = new GraphLayout.Box(0, 0, camera.width(), Math.max(1, camera.height() - corner[1]));
        return camera.fitScale(b, beside) >= camera.fitScale(b, above) ? beside : above;
    }

    /** The opened sections whose boxes hold {@code b}, outermost first. */
    private static List<GraphLayout.Box> around(GraphLayout.Result r, GraphLayout.Box b) {
        List<GraphLayout.Box> out = new ArrayList<>();
        if (b == null) {
            return out;
        }
        for (GraphLayout.GroupBox g : r.groups()) {
            GraphLayout.Box s = g.box();
            if (s.x() <= b.x() + 1e-6 && s.y() <= b.y() + 1e-6 && s.x() + s.w() >= b.x() + b.w() - 1e-6
                    && s.y() + s.h() >= b.y() + b.h() - 1e-6) {
                out.add(s);
            }
        }
        out.sort(Comparator.comparingDouble((GraphLayout.Box s) -> s.w() * s.h()).reversed());
        return out;
    }
}
