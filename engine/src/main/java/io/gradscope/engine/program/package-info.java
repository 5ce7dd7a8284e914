/**
 * The .grad language and running it: lexer, parser, syntax tree, shape check and interpreter,
 * the function table written from the op specs, leaves and their values (.npy files), run
 * options, the run's result (ProgramRun), replay of values not retained, and the memory reports
 * of a run. It may use forward, check, scalar, autograd and the packages below them
 * (EngineLayersTest).
 */
package io.gradscope.engine.program;
