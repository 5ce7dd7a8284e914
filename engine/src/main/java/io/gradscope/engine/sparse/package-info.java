/**
 * Sparsity patterns and sparse matrices: Pattern (compressed sparse rows), SparseMatrix, index
 * sets per element, patterns read a row at a time, and Matrix Market files. Plain data with no
 * tensors: it may use only the engine root package (EngineLayersTest).
 */
package io.gradscope.engine.sparse;
