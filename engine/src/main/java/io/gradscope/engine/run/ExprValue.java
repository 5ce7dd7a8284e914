package io.gradscope.engine.run;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;

/** What an expression evaluates to: a tensor (only its shape while checking), a number, a string, ... */
sealed interface ExprValue {
    /** A tensor; {@code tensor} is null while shapes are being checked. */
    record TensorVal(int[] shape, DType dtype, Tensor tensor) implements ExprValue {
        String describe() {
            return "a tensor of shape " + Shapes.str(shape);
        }
    }

    /** A number; {@code text} is the literal as written, when it is one (null for a computed number). */
    record NumVal(double value, boolean integral, String text) implements ExprValue {
        NumVal(double value, boolean integral) {
            this(value, integral, null);
        }

        /** The number as the user wrote it, or exactly (an integer past 2^63 in full, not clamped). */
        String shown() {
            if (text != null) {
                return text;
            }
            if (!integral || Double.isInfinite(value) || Double.isNaN(value)) {
                return Double.toString(value);
            }
            return Math.abs(value) < 0x1p63 ? Long.toString((long) value)
                    : new java.math.BigDecimal(value).toBigInteger().toString();
        }
    }

    record StrVal(String value) implements ExprValue {
    }

    record BoolVal(boolean value) implements ExprValue {
    }

    record NoneVal() implements ExprValue {
    }

    record TupleVal(List<ExprValue> items) implements ExprValue {
    }

    static String kind(ExprValue v) {
        if (v instanceof TensorVal t) {
            return t.describe();
        }
        if (v instanceof NumVal n) {
            return "the number " + n.shown();
        }
        if (v instanceof StrVal s) {
            return "the string \"" + s.value() + "\"";
        }
        if (v instanceof BoolVal b) {
            return b.value() ? "True" : "False";
        }
        return v instanceof NoneVal ? "None" : "a tuple";
    }
}
