package io.gradscope.engine.run;

import io.gradscope.engine.alloc.HeapLimit;
import io.gradscope.engine.lang.Pos;
import io.gradscope.engine.lang.ProgramException;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Shapes;

/**
 * The program's memory, counted as its values are declared and computed: a tensor that cannot fit
 * is refused before it is allocated, and a total past the heap's limit is kept as a problem that
 * the interpreter reports after the whole check (so that a shape error further down is reported
 * first).
 */
final class MemoryCheck {
    private final String file;
    private final long limit = HeapLimit.bytes();
    private long bytes;
    private long gradientBytes;
    private ProgramException problem;

    MemoryCheck(String file) {
        this.file = file;
    }

    /**
     * Refuses a tensor that cannot fit in memory before it is allocated. A value that needs a gradient
     * counts twice (the backward pass keeps a gradient of its size). {@code what} names the value in
     * the error, written only then (an account is taken for every op).
     */
    void account(Pos pos, java.util.function.Supplier<String> what, int[] shape, DType dt, boolean withGradient) {
        long n = Shapes.numel(shape);
        double need = (double) n * dt.bytes();
        if (n > Shapes.MAX_NUMEL || need > limit) {
            throw new ProgramException(file, pos, what.get() + " of shape " + Shapes.str(shape) + " needs " + human(need) + " (" + dt
                    + "), more than " + (n > Shapes.MAX_NUMEL ? "a tensor can hold (" + Shapes.MAX_NUMEL + " elements)"
                    : HeapLimit.limit() + " (" + HeapLimit.RAISE + ")"));
        }
        bytes += (long) need;
        gradientBytes += withGradient ? (long) need : 0;
        if (problem == null && bytes + gradientBytes > limit) {
            problem = new ProgramException(file, pos, "the program needs " + human(bytes + gradientBytes) + " by this point ("
                    + human(bytes) + " of values" + (gradientBytes > 0 ? ", " + human(gradientBytes) + " of their gradients in the "
                    + "backward pass" : "") + "), more than " + HeapLimit.limit() + " (" + HeapLimit.RAISE + ")");
        }
    }

    /** The first point at which the total passed the heap's limit, or null. */
    ProgramException problem() {
        return problem;
    }

    static String human(double b) {
        return HeapLimit.human(b);
    }
}
