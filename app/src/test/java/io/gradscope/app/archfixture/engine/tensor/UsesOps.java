package io.gradscope.app.archfixture.engine.tensor;

/** Breaks the engine's layers: tensor uses ops, a row above. */
public class UsesOps {
    io.gradscope.app.archfixture.engine.ops.SomeOp op;
}
