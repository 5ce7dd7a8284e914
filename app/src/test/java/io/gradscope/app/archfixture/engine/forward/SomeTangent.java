package io.gradscope.app.archfixture.engine.forward;

/** A tangent; uses nothing. */
public class SomeTangent {

}
