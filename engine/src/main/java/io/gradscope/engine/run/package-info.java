/**
 * Running a .grad program: the shape check and the interpreter (Program, Interpreter, Evaluator,
 * the functions a program calls), leaves and their values (.npy files), run options, the run's
 * result (ProgramRun), replay of values not retained, and the memory reports of a run. It reads
 * the syntax tree the language package parses, and may use forward, check, scalar, autograd and
 * the packages below them (EngineLayersTest).
 */
package io.gradscope.engine.run;
