package io.gradscope.app.archfixture.engine.stray;

/** Breaks the engine's layers: a package in no layer. */
public class Unplaced {

}
