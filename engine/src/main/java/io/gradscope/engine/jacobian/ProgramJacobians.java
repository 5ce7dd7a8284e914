package io.gradscope.engine.jacobian;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.lang.Names;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.run.Directional;
import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import io.gradscope.engine.trace.Trace;
import java.util.List;
import java.util.Map;

/**
 * Jacobians between the named values of a {@code .grad} program: one forward pass, recorded with
 * its values, then the {@link GraphJacobian} of one value with respect to a leaf (a param, or an
 * input declared {@code grad=True}) or another named value, asked of the {@link RecordedRun} by the
 * trace's ids for the two names (as the app asks of the run it shows).
 *
 * <pre>{@code
 * GraphJacobian j = ProgramJacobians.of(program, options, "h", "W1");
 * SparseMatrix dense = Jacobians.denseByRows(j);
 * }</pre>
 */
public final class ProgramJacobians {
    private ProgramJacobians() {
    }

    /** A mistake in naming a value: which one ({@link #OF} or {@link #WRT}) and the name. */
    public static final class BadValue extends GradscopeException {
        public static final String OF = "of";
        public static final String WRT = "wrt";
        private final String which;
        private final String name;

        BadValue(String which, String name, String message) {
            super(message);
            this.which = which;
            this.name = name;
        }

        /** {@link #OF} (the value differentiated) or {@link #WRT} (the one it is differentiated by). */
        public String which() {
            return which;
        }

        public String name() {
            return name;
        }
    }

    /** The Jacobian of the value {@code of} with respect to {@code wrt}. */
    public static GraphJacobian of(Program program, RunOptions options, String of, String wrt) {
        Named n = named(program, options, of, wrt);
        return n.of() < 0 ? GraphJacobian.of(n.ofValue(), n.run().value(n.wrt())) : n.run().jacobian(n.of(), n.wrt());
    }

    /** The Hessian of the scalar value {@code of} with respect to {@code wrt}. */
    public static GraphJacobian hessian(Program program, RunOptions options, String of, String wrt) {
        Named n = named(program, options, of, wrt);
        if (n.ofValue().rank() != 0) {
            throw new BadValue(BadValue.OF, of, "a Hessian needs a scalar, but '" + of + "' has shape "
                    + Shapes.str(n.ofValue().shape()));
        }
        return n.of() < 0 ? Hessians.of(n.ofValue(), n.run().value(n.wrt())) : n.run().hessian(n.of(), n.wrt());
    }

    /**
     * A recorded run and the trace's ids of the two values named; {@code of} is -1 for a literal
     * constant ({@code c = 3}: the trace has no id for it), whose Jacobian is zero.
     */
    private record Named(RecordedRun run, long of, long wrt, Tensor ofValue) {
    }

    private static Named named(Program program, RunOptions options, String of, String wrt) {
        List<Leaf> leaves = program.check(options.dtype());
        if (leaves.stream().anyMatch(l -> l.name().equals(wrt))) {
            try {
                Directional.leaf(program, options, wrt, true); // labels and inputs without grad=True are refused here
            } catch (GradscopeException e) {
                throw new BadValue(BadValue.WRT, wrt, e.getMessage());
            }
        }
        Program.Evaluation e;
        Trace trace;
        try (Recorder rec = Recorder.start(true); var on = GradMode.enable()) {
            e = program.evaluate(options);
            trace = rec.trace();
        }
        Tensor ofValue = named(e.values(), of, BadValue.OF);
        Tensor wrtValue = named(e.values(), wrt, BadValue.WRT);
        if (!ofValue.dtype().isFloating()) {
            throw new BadValue(BadValue.OF, of, "'" + of + "' holds integers (labels): it has no Jacobian");
        }
        if (!wrtValue.requiresGrad()) {
            throw new BadValue(BadValue.WRT, wrt, "'" + wrt + "' does not depend on any param or input(..., grad=True), "
                    + "so no derivative flows through it");
        }
        RecordedRun run = RecordedRun.of(trace);
        return new Named(run, run.idOf(of), run.idOf(wrt), ofValue);
    }

    private static Tensor named(Map<String, Tensor> values, String name, String which) {
        Tensor t = values.get(name);
        if (t == null) {
            throw new BadValue(which, name, "the program has no value named '" + name + "'" + Names.didYouMean(name, values.keySet()));
        }
        return t;
    }
}
