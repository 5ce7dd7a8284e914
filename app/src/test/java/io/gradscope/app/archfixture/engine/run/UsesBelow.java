package io.gradscope.app.archfixture.engine.run;

/** Keeps the engine's layers: run uses rows below it. */
public class UsesBelow {
    io.gradscope.app.archfixture.engine.ops.SomeOp op;
    io.gradscope.app.archfixture.engine.forward.SomeTangent tangent;
    io.gradscope.app.archfixture.engine.tensor.UsesOps tensor;
}
