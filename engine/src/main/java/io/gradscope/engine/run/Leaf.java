package io.gradscope.engine.run;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;

/** A leaf declared by a program: {@code input}, {@code param} or {@code labels}. */
public record Leaf(String name, Kind kind, int[] shape, boolean grad, String init, int classes, Pos pos) {
    /** Which leaf call declared it. */
    public enum Kind { INPUT, PARAM, LABELS }

    /**
     * Checks a value given for this leaf (shape, integer or float) and converts floats to
     * {@code dtype}. The error message says what is wrong without naming the leaf.
     */
    public Tensor accept(Tensor given, DType dtype) {
        if (!java.util.Arrays.equals(given.shape(), shape)) {
            throw new GradscopeException("shape " + Shapes.str(given.shape()) + " does not match the declared " + Shapes.str(shape));
        }
        if (kind == Kind.LABELS) {
            if (given.dtype() != DType.INT64) {
                throw new GradscopeException("labels need integers (<i8 or <i4), not " + given.dtype());
            }
            // The longs themselves, not doubles: a label past 2^53 is echoed as written.
            Tensor c = given.toDevice(io.gradscope.engine.tensor.Device.CPU).contiguous();
            long[] v = c.storage().longs();
            long n = c.numel();
            for (int i = 0; i < n; i++) {
                long label = v[c.offset() + i];
                if (label < 0 || label >= classes) {
                    throw new GradscopeException("label " + label + " at index " + i + " is outside [0, " + classes + ")");
                }
            }
            return given;
        }
        if (!given.dtype().isFloating()) {
            throw new GradscopeException("needs floats (<f4 or <f8), not integers");
        }
        Tensor t = given.to(dtype);
        return t == given ? given.contiguous().asStrided(given.shape(), given.strides(), given.offset()) : t;
    }

    @Override
    public String toString() {
        return name + " = " + kind.name().toLowerCase(java.util.Locale.ROOT) + Shapes.str(shape);
    }
}
