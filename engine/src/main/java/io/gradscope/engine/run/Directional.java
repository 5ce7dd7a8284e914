package io.gradscope.engine.run;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.autograd.Backward;
import io.gradscope.engine.forward.Hvp;
import io.gradscope.engine.forward.Tangents;
import io.gradscope.engine.lang.Names;
import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Directional derivatives of a program with respect to one leaf: the JVP of every named value
 * (forward mode, one pass) and Hessian-vector products of the objective.
 *
 * <pre>{@code
 * Directional.JvpResult r = Directional.jvp(program, options, "W1", v);
 * Tensor dLoss = r.jvp();                 // ⟨∇loss, v⟩, 0-d
 * Tensor dHidden = r.tangents().get("h"); // J_h · v
 * }</pre>
 */
public final class Directional {
    private Directional() {
    }

    /** The objective and its directional derivative, and every named value with its tangent. */
    public record JvpResult(Tensor objective, Tensor jvp, Map<String, Tensor> values, Map<String, Tensor> tangents) {
    }

    /** The leaf {@code name} of the program, checked to take a tangent of {@code shape} (null: any). */
    public static Leaf leaf(Program program, RunOptions options, String name, boolean needsGradient) {
        List<Leaf> leaves = program.check(options.dtype());
        for (Leaf l : leaves) {
            if (l.name().equals(name)) {
                if (l.kind() == Leaf.Kind.LABELS) {
                    throw new GradscopeException("'" + name + "' is a labels leaf (integers): it has no tangent");
                }
                if (needsGradient && !l.grad()) {
                    throw new GradscopeException("'" + name + "' is an input without a gradient: declare it input(..., grad=True)");
                }
                return l;
            }
        }
        List<String> names = leaves.stream().map(Leaf::name).toList();
        var computed = program.assignedNames().get(name);
        if (computed != null) {
            throw new GradscopeException("'" + name + "' is computed (line " + computed.line() + "), not a leaf: a tangent or "
                    + "vector goes on a leaf; the leaves are " + String.join(", ", names));
        }
        throw new GradscopeException("no leaf named '" + name + "'" + Names.didYouMean(name, names));
    }

    private static void checkShape(Leaf leaf, Tensor v, String what) {
        if (!java.util.Arrays.equals(leaf.shape(), v.shape())) {
            throw new GradscopeException(what + " has shape " + Shapes.str(v.shape()) + " but '" + leaf.name() + "' is "
                    + Shapes.str(leaf.shape()));
        }
    }

    /** One forward pass carrying the tangent {@code v} of leaf {@code name}. */
    public static JvpResult jvp(Program program, RunOptions options, String name, Tensor v) {
        checkShape(leaf(program, options, name, false), v, "the tangent");
        try (Tangents.Level level = Tangents.open().seedLeaf(name, v); var off = GradMode.disable()) {
            Program.Evaluation e = program.evaluate(options);
            Map<String, Tensor> tangents = new LinkedHashMap<>();
            e.values().forEach((k, t) -> {
                Tensor dt = Tangents.of(t);
                tangents.put(k, dt != null || !t.dtype().isFloating() ? dt : Tensor.zeros(t.dtype(), t.device(), t.shape()));
            });
            Tensor dObj = Tangents.of(e.objective());
            if (dObj == null) {
                dObj = Tensor.zeros(e.objective().dtype(), e.objective().device(), e.objective().shape());
            }
            return new JvpResult(e.objective(), dObj, e.values(), tangents);
        }
    }

    /**
     * A whole run (forward and backward, recorded) carrying the tangent {@code v} of leaf
     * {@code name}: its trace holds a {@code Tangent} event for every value that depends on the leaf
     * (J·v, with the op's JVP rule) and, in the backward pass, for every upstream gradient (its
     * directional derivative; at the leaf itself, H·v when the leaf has a gradient). What the app
     * steps through for forward mode and for a Hessian-vector product.
     */
    public static ProgramRun tracedRun(Program program, RunOptions options, String name, Tensor v) {
        return traced(program, options, name, v, () -> program.run(options));
    }

    /** As {@link #tracedRun}, the run made by {@code run} (with its own memory options and progress). */
    public static ProgramRun traced(Program program, RunOptions options, String name, Tensor v, java.util.function.Supplier<ProgramRun> run) {
        checkShape(leaf(program, options, name, false), v, "the tangent");
        try (Tangents.Level level = Tangents.open().seedLeaf(name, v)) {
            return run.get();
        }
    }

    /** H·v for the objective's Hessian with respect to leaf {@code name}; shaped like the leaf. */
    public static Tensor hvp(Program program, RunOptions options, String name, Tensor v, Hvp.Method method) {
        Leaf leaf = leaf(program, options, name, true);
        checkShape(leaf, v, "the vector");
        if (method == Hvp.Method.FORWARD_OVER_REVERSE) {
            try (Tangents.Level level = Tangents.open().seedLeaf(name, v)) {
                Program.Evaluation e = program.evaluate(options);
                Tensor x = e.values().get(name);
                Backward.run(e.objective());
                return orZeros(x.grad() == null ? null : Tangents.of(x.grad()), x);
            }
        }
        Program.Evaluation e = program.evaluate(options);
        Tensor x = e.values().get(name);
        Backward.startCreatingGraph(e.objective()).finish();
        Tensor g = x.grad();
        if (g == null || !g.requiresGrad()) {
            return Tensor.zeros(x.dtype(), x.device(), x.shape());
        }
        x.setGrad(null);
        Backward.run(Ops.sum(Ops.mul(g, v.to(x.dtype()).toDevice(x.device()))));
        return orZeros(x.grad(), x);
    }

    private static Tensor orZeros(Tensor t, Tensor like) {
        return t != null ? t : Tensor.zeros(like.dtype(), like.device(), like.shape());
    }
}
