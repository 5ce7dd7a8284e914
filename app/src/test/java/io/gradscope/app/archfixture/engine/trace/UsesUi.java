package io.gradscope.app.archfixture.engine.trace;

/** Breaks the engine's rule against UI: uses JavaFX and the app. */
public class UsesUi {
    javafx.scene.Node node;
    io.gradscope.app.archfixture.app.view.OldPanel panel;
}
