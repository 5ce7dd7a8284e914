package io.gradscope.engine.ops;

import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

/**
 * How an op writes out as a graph of scalars: each output element an expression of input elements,
 * built with the scalar engine's micrograd-style values ({@code scalar.ScalarExpansion} builds the
 * graph; this only says its shape). An op gives its form by {@link Op#scalarForm()}; elementwise
 * functions derive one from their derivative unless they spell it out in scalar steps.
 *
 * <pre>{@code
 * new ScalarForm.Elementwise(t -> t.neg().exp().add(1).pow(-1))   // sigmoid, step by step
 * }</pre>
 */
public sealed interface ScalarForm {

    /** A scalar of the graph being built, with the steps a form may use. */
    interface Term {
        /** The scalar's value. */
        double value();

        Term add(Term o);

        Term sub(Term o);

        Term mul(Term o);

        Term div(Term o);

        Term add(double c);

        Term mul(double c);

        Term neg();

        Term pow(double c);

        Term exp();

        Term log();

        Term tanh();

        Term relu();

        /** A function of this scalar as one step called {@code name}: its value and derivative here. */
        Term apply(String name, double value, double derivative);

        /** A function of this scalar and {@code other} as one step: its value and both partial derivatives here. */
        Term apply(String name, double value, double dThis, Term other, double dOther);
    }

    /** Each output element a function of the same element of the one input. */
    record Elementwise(UnaryOperator<Term> f) implements ScalarForm {
    }

    /** Each output element a function of the elements of the two inputs broadcast onto it (NumPy rules). */
    record Broadcast(BinaryOperator<Term> f) implements ScalarForm {
    }

    /** Vectors and matrices multiplied as matmul does: out[i][j] = Σₖ a[i][k]·b[k][j]. */
    record MatrixProduct() implements ScalarForm {
    }

    /** One output: the sum of every input element, divided by their count when {@code mean}. */
    record Total(boolean mean) implements ScalarForm {
    }
}
