/**
 * The .grad language: lexer, tokens and positions, parser, syntax tree (Ast), the errors a program's
 * text can have (ProgramException), the "# open:" hint, "did you mean" names, and the function
 * table of the docs written from the op specs. Nothing here runs a program (that is the run
 * package); it may use ops and the packages below it (EngineLayersTest).
 */
package io.gradscope.engine.lang;
