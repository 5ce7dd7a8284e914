/**
 * The engine's shared small pieces: the exception for a mistake a user can cause
 * (GradscopeException, shown as one line, never a stack trace), checks on files a user names to
 * read or write, and a per-thread value. It is the bottom of the engine: it uses only the JDK,
 * and every other engine package may use it (EngineLayersTest).
 */
package io.gradscope.engine;
