package io.gradscope.app.archfixture.engine.ops;

/** An op; uses nothing. */
public class SomeOp {

}
