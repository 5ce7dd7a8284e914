package io.gradscope.app.archfixture.app.layout;

/** Breaks the rule that layout uses no JavaFX. */
public class UsesBeans {
    javafx.beans.property.DoubleProperty width;
}
