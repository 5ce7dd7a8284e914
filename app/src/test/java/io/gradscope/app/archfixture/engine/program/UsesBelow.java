package io.gradscope.app.archfixture.engine.program;

/** Keeps the engine's layers: program uses rows below it. */
public class UsesBelow {
    io.gradscope.app.archfixture.engine.ops.SomeOp op;
    io.gradscope.app.archfixture.engine.forward.SomeTangent tangent;
    io.gradscope.app.archfixture.engine.tensor.UsesOps tensor;
}
