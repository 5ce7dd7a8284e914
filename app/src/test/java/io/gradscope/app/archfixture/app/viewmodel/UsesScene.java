package io.gradscope.app.archfixture.app.viewmodel;

/** Breaks the rule that view-models use no javafx.scene. */
public class UsesScene {
    javafx.scene.Node node;
}
