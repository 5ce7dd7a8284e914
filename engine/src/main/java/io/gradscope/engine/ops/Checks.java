package io.gradscope.engine.ops;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;

/** Shared input checks for the op table's shape rules. */
final class Checks {
    private Checks() {
    }

    /** All the given inputs are float tensors of one dtype. */
    static void floats(String op, DType[] dtypes, int... which) {
        DType first = null;
        for (int i : which) {
            DType d = dtypes[i];
            if (!d.isFloating()) {
                throw new GradscopeException(op + ": input " + (i + 1) + " must be a float tensor, not " + d);
            }
            if (first != null && d != first) {
                throw new GradscopeException(op + ": inputs must have one dtype, got " + first + " and " + d);
            }
            first = d;
        }
    }

    static void arity(String op, int[][] shapes, int n) {
        if (shapes.length != n) {
            throw new GradscopeException(op + ": takes " + n + " tensor argument" + (n == 1 ? "" : "s") + ", got " + shapes.length);
        }
    }

    static void minRank(String op, int[] shape, int rank, String what) {
        if (shape.length < rank) {
            throw new GradscopeException(op + ": " + what + " must have rank " + rank + " or more, not shape " + Shapes.str(shape));
        }
    }

    /** The label of an axes attribute: "axis=1", "axis=(0, 2)" or "" for all. */
    static String axesText(int[] axes) {
        if (axes == null) {
            return "";
        }
        if (axes.length == 1) {
            return "axis=" + axes[0];
        }
        StringBuilder sb = new StringBuilder("axis=(");
        for (int i = 0; i < axes.length; i++) {
            sb.append(i > 0 ? ", " : "").append(axes[i]);
        }
        return sb.append(axes.length == 1 ? ",)" : ")").toString();
    }
}
