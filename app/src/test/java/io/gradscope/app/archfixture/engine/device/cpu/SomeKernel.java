package io.gradscope.app.archfixture.engine.device.cpu;

/** A kernel; uses nothing. */
public class SomeKernel {

}
