package io.gradscope.engine.program;

import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;

/** What an expression evaluates to: a tensor (only its shape while checking), a number, a string, ... */
sealed interface Value {
    /** A tensor; {@code tensor} is null while shapes are being checked. */
    record TensorVal(int[] shape, DType dtype, Tensor tensor) implements Value {
        String describe() {
            return "a tensor of shape " + Shapes.str(shape);
        }
    }

    record NumVal(double value, boolean integral) implements Value {
    }

    record StrVal(String value) implements Value {
    }

    record BoolVal(boolean value) implements Value {
    }

    record NoneVal() implements Value {
    }

    record TupleVal(List<Value> items) implements Value {
    }

    static String kind(Value v) {
        if (v instanceof TensorVal t) {
            return t.describe();
        }
        if (v instanceof NumVal n) {
            return "the number " + (n.integral() ? Long.toString((long) n.value()) : Double.toString(n.value()));
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
