package io.gradscope.app.view;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The GraphStream stylesheet, from assets/styles/graph.css (copied onto the class path). */
public final class GraphStyles {
    private GraphStyles() {
    }

    public static String css() {
        try (InputStream in = GraphStyles.class.getResourceAsStream("/styles/graph.css")) {
            if (in == null) {
                throw new IllegalStateException("styles/graph.css is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
