package io.gradscope.engine.tensor;

/** Elementwise primitives of two inputs. Comparisons give 1 or 0 in the output's dtype. */
public enum BinaryKind {
    ADD, SUB, MUL, DIV, MAX, MIN, EQ, GT
}
