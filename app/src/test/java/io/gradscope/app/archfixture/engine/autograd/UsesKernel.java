package io.gradscope.app.archfixture.engine.autograd;

/** Breaks the engine's layers: autograd uses a backend class, which no package may use. */
public class UsesKernel {
    io.gradscope.app.archfixture.engine.device.cpu.SomeKernel kernel;
}
