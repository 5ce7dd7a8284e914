package io.gradscope.app.viewmodel;

import io.gradscope.engine.trace.TraceGraph;

/**
 * What a view-model adds to the graph's looks on top of the sweep's states: a node's fill, outline
 * or text (a diagnosis, an overlay's colour, a recomputed node, a lit path), an edge's colour. The
 * graph asks every decorator it has, in the order they were added, and the later ones win; the
 * selection's outline is drawn over all of them. A decorator says when its looks changed through
 * {@link #revision()}.
 */
public interface Decorator {
    /** How a decorator changes a node's look; a null field keeps what is under it. */
    record Paint(String fill, String stroke, Double strokeWidth, String text, Boolean bold) {
        public static Paint fill(String fill, String text) {
            return new Paint(fill, null, null, text, null);
        }

        public static Paint outline(String stroke, double width) {
            return new Paint(null, stroke, width, null, null);
        }
    }

    /** The paint of a drawn node ("v12", or "g:path" for a collapsed group), or null for none. */
    Paint node(String key);

    /** The colour of an edge drawn lit, or null for none. */
    default String edge(TraceGraph.Edge e) {
        return null;
    }

    /** Changes whenever any of this decorator's looks changed. */
    javafx.beans.value.ObservableValue<?> revision();
}
