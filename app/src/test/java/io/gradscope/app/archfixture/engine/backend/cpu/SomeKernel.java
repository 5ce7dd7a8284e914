package io.gradscope.app.archfixture.engine.backend.cpu;

/** A kernel; uses nothing. */
public class SomeKernel {

}
