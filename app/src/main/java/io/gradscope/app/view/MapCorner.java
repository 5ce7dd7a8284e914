package io.gradscope.app.view;

import io.gradscope.app.draw.Camera;
import io.gradscope.app.draw.GraphScene;
import java.util.List;
import javafx.geometry.Pos;

/**
 * Which corner of the graph pane the overview map sits in: the bottom-right one unless it covers a
 * drawn node there while another corner covers none (zoomed in on a small graph, the map sat over a
 * node beside the one followed); where every corner covers one, the corner covering the least.
 */
final class MapCorner {
    /** The corners tried, in order of preference. */
    static final List<Pos> CORNERS = List.of(Pos.BOTTOM_RIGHT, Pos.BOTTOM_LEFT, Pos.TOP_RIGHT, Pos.TOP_LEFT);

    private MapCorner() {
    }

    /** The map's rectangle (x0, y0, x1, y1, in the pane's pixels) in {@code corner}, {@link GraphPanel#MAP_MARGIN} in from its edges. */
    static double[] rect(Pos corner, double paneW, double paneH, double mapW, double mapH) {
        double m = GraphPanel.MAP_MARGIN;
        boolean right = corner.getHpos() == javafx.geometry.HPos.RIGHT;
        boolean bottom = corner.getVpos() == javafx.geometry.VPos.BOTTOM;
        double x0 = right ? paneW - m - mapW : m;
        double y0 = bottom ? paneH - m - mapH : m;
        return new double[] {x0, y0, x0 + mapW, y0 + mapH};
    }

    /**
     * The corner for a map of {@code mapW} × {@code mapH} pixels over the scene as the camera shows it:
     * the bottom-right one when it covers no node, else {@code current} when it covers none, else the first
     * corner covering none, else the one covering the least area of nodes ({@code current} on a tie).
     */
    static Pos choose(Camera camera, GraphScene scene, double mapW, double mapH, Pos current) {
        Pos best = current;
        double least = covered(camera, scene, rect(current, camera.width(), camera.height(), mapW, mapH));
        if (covered(camera, scene, rect(Pos.BOTTOM_RIGHT, camera.width(), camera.height(), mapW, mapH)) == 0) {
            return Pos.BOTTOM_RIGHT;
        }
        if (least == 0) {
            return current;
        }
        for (Pos p : CORNERS) {
            double a = covered(camera, scene, rect(p, camera.width(), camera.height(), mapW, mapH));
            if (a < least) {
                least = a;
                best = p;
            }
        }
        return best;
    }

    /** The area (square pixels) of drawn nodes under a rectangle of the pane. */
    static double covered(Camera camera, GraphScene scene, double[] r) {
        double area = 0;
        for (int i = 0; i < scene.size(); i++) {
            double[] b = scene.box(i);
            double x0 = Math.max(r[0], camera.toPxX(b[0]));
            double y0 = Math.max(r[1], camera.toPxY(b[1]));
            double x1 = Math.min(r[2], camera.toPxX(b[0] + b[2]));
            double y1 = Math.min(r[3], camera.toPxY(b[1] + b[3]));
            if (x1 > x0 && y1 > y0) {
                area += (x1 - x0) * (y1 - y0);
            }
        }
        return area;
    }
}
