package io.gradscope.app.draw;

import io.gradscope.app.viewmodel.GraphStates;
import io.gradscope.app.viewmodel.Sweep;
import java.util.Map;

/**
 * The colours of the graph, in one place for the screen, the PNG and the SVG: a node's look from
 * its kind (input, param, labels, op, objective, a collapsed group), the sweep's state at the
 * cursor (current, visited, pending) and the selection; an edge's from its look at the cursor.
 */
public final class Looks {
    private Looks() {
    }

    /** How a node is drawn. */
    public record NodeLook(String fill, String stroke, double strokeWidth, String text, boolean bold) {
        @Override
        public String toString() {
            return "fill-color: " + fill + "; stroke-color: " + stroke + "; stroke-width: " + strokeWidth + "px; text-color: " + text
                    + "; text-style: " + (bold ? "bold" : "normal") + ";";
        }
    }

    /** How an edge is drawn. */
    public record EdgeLook(String color, double width) {
    }

    public static final String BACKGROUND = "#fbfbfd";
    public static final String TEXT = "#1d2433";
    /**
     * The text of a node not yet reached: lighter than {@link #TEXT} yet readable on {@link #PENDING_FILL}
     * (contrast 5.3:1; it was #9aa1ad, 2.4:1, and before step 1, when every node is not yet reached, the
     * whole graph read as faint grey).
     */
    public static final String DIM_TEXT = "#5f6673";
    public static final String BOX_STROKE = "#9aa3b5";
    public static final String BOX_TITLE = "#4b5468";
    public static final String RUN_FILL = "#f3f0fb";
    public static final String RUN_STROKE = "#8b75c9";

    /** Fill and outline by kind. */
    static final Map<String, NodeLook> KIND = Map.of(
            "input", new NodeLook("#eef4ff", "#5b7fc7", 1.2, TEXT, false),
            "labels", new NodeLook("#eef4ff", "#5b7fc7", 1.2, TEXT, false),
            "param", new NodeLook("#fff4e5", "#d08a2c", 1.2, TEXT, false),
            "op", new NodeLook("#ffffff", "#8a93a6", 1.2, TEXT, false),
            "objective", new NodeLook("#f1e9ff", "#7a4fd0", 2, TEXT, false),
            "group", new NodeLook("#eef0f4", "#6b7385", 1.5, TEXT, true));

    public static final String CURRENT_FILL = "#fff3b0";
    public static final String CURRENT_STROKE = "#e0a800";
    public static final String VISITED_STROKE = "#2e9d63";
    public static final String PENDING_FILL = "#f4f5f7";
    public static final String PENDING_STROKE = "#aeb4bf";
    public static final String SELECTED_STROKE = "#1f6feb";

    public static final EdgeLook EDGE = new EdgeLook("#9aa3b5", 1.2);
    public static final EdgeLook EDGE_PENDING = new EdgeLook("#c3c8d1", 1.2);
    public static final EdgeLook EDGE_ACTIVE = new EdgeLook("#e0582b", 3);

    /** A node of {@code kind} ("op", "param", ..., "group") in {@code state}, selected or not. */
    public static NodeLook node(String kind, Sweep.State state, boolean selected) {
        NodeLook k = KIND.getOrDefault(kind, KIND.get("op"));
        NodeLook look = switch (state == null ? Sweep.State.OUTSIDE : state) {
            case CURRENT -> new NodeLook(CURRENT_FILL, CURRENT_STROKE, 3, TEXT, true);
            case VISITED -> new NodeLook(k.fill(), VISITED_STROKE, 2, TEXT, k.bold());
            case PENDING -> new NodeLook(PENDING_FILL, PENDING_STROKE, 1.2, DIM_TEXT, k.bold());
            case OUTSIDE -> k;
        };
        return selected ? selected(look) : look;
    }

    /** {@code look} with a decorator's paint over it (null fields keep what is there). */
    public static NodeLook paint(NodeLook look, io.gradscope.app.viewmodel.Decorator.Paint p) {
        if (p == null) {
            return look;
        }
        return new NodeLook(p.fill() == null ? look.fill() : p.fill(), p.stroke() == null ? look.stroke() : p.stroke(),
                p.strokeWidth() == null ? look.strokeWidth() : p.strokeWidth(), p.text() == null ? look.text() : p.text(),
                p.bold() == null ? look.bold() : p.bold());
    }

    /** The selection's outline over a look. */
    public static NodeLook selected(NodeLook look) {
        return new NodeLook(look.fill(), SELECTED_STROKE, 3, look.text(), look.bold());
    }

    /** An edge a decorator lights in {@code color}. */
    public static EdgeLook lit(String color) {
        return new EdgeLook(color, EDGE_ACTIVE.width());
    }

    /** Whether an edge is drawn over the plain ones. */
    static boolean isLit(EdgeLook look) {
        return look.width() >= EDGE_ACTIVE.width();
    }

    public static EdgeLook edge(GraphStates.EdgeLook look) {
        return switch (look == null ? GraphStates.EdgeLook.PLAIN : look) {
            case ACTIVE -> EDGE_ACTIVE;
            case PENDING -> EDGE_PENDING;
            case PLAIN -> EDGE;
        };
    }
}
