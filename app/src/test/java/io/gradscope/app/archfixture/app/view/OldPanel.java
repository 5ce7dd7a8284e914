package io.gradscope.app.archfixture.app.view;

/** A view that uses an engine type: today's kind of exception, listed in the fixture's store. */
public class OldPanel {
    io.gradscope.app.archfixture.engine.ops.SomeOp op;
}
