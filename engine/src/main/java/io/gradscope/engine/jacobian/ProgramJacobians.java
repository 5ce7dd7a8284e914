package io.gradscope.engine.jacobian;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.autograd.GradMode;
import io.gradscope.engine.program.Directional;
import io.gradscope.engine.program.Leaf;
import io.gradscope.engine.program.Names;
import io.gradscope.engine.program.Program;
import io.gradscope.engine.program.RunOptions;
import io.gradscope.engine.tensor.Tensor;
import java.util.List;
import java.util.Map;

/**
 * Jacobians between the named values of a {@code .grad} program: one recorded forward pass, then
 * the {@link GraphJacobian} of one value with respect to a leaf (a param, or an input declared
 * {@code grad=True}) or another named value.
 *
 * <pre>{@code
 * GraphJacobian j = ProgramJacobians.of(program, options, "h", "W1");
 * SparseMatrix dense = Jacobians.denseByRows(j);
 * }</pre>
 */
public final class ProgramJacobians {
    private ProgramJacobians() {
    }

    /** The Jacobian of the value {@code of} with respect to {@code wrt}. */
    public static GraphJacobian of(Program program, RunOptions options, String of, String wrt) {
        Tensor[] t = values(program, options, of, wrt);
        return GraphJacobian.of(t[0], t[1]);
    }

    /** The Hessian of the scalar value {@code of} with respect to {@code wrt}. */
    public static GraphJacobian hessian(Program program, RunOptions options, String of, String wrt) {
        Tensor[] t = values(program, options, of, wrt);
        return Hessians.of(t[0], t[1]);
    }

    private static Tensor[] values(Program program, RunOptions options, String of, String wrt) {
        List<Leaf> leaves = program.check(options.dtype());
        boolean leaf = leaves.stream().anyMatch(l -> l.name().equals(wrt));
        if (leaf) {
            Directional.leaf(program, options, wrt, true); // labels and inputs without grad=True are refused here
        }
        Program.Evaluation e;
        try (var on = GradMode.enable()) {
            e = program.evaluate(options);
        }
        Tensor ofValue = named(e.values(), of, "--of");
        Tensor wrtValue = named(e.values(), wrt, "--wrt");
        if (!ofValue.dtype().isFloating()) {
            throw new GradscopeException("'" + of + "' holds integers (labels): it has no Jacobian");
        }
        if (!wrtValue.requiresGrad()) {
            throw new GradscopeException("'" + wrt + "' does not depend on any param or input(..., grad=True), "
                    + "so no derivative flows through it");
        }
        return new Tensor[] {ofValue, wrtValue};
    }

    private static Tensor named(Map<String, Tensor> values, String name, String what) {
        Tensor t = values.get(name);
        if (t == null) {
            throw new GradscopeException(what + " " + name + ": the program has no value named '" + name + "'"
                    + Names.didYouMean(name, values.keySet()));
        }
        return t;
    }
}
