package io.gradscope.app.archfixture.engine.check;

/** Breaks the engine's layers: check uses forward, in its own row. */
public class UsesForward {
    io.gradscope.app.archfixture.engine.forward.SomeTangent tangent;
}
