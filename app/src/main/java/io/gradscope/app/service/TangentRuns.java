package io.gradscope.app.service;

import io.gradscope.engine.forward.Hvp;
import io.gradscope.engine.run.Directional;
import io.gradscope.engine.run.Leaf;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.ProgramRun;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.tensor.Shapes;
import io.gradscope.engine.tensor.Tensor;
import java.util.function.Supplier;

/**
 * Runs that carry a tangent, for the app: the direction tensor made as the command line makes it
 * ({@code ones}, {@code random} from the run's seed, {@code onehot:I}), the traced run the sweeps
 * step, and a leaf's dense Hessian one Hessian-vector product per column. Off the UI thread only.
 */
public final class TangentRuns {
    /** The most elements of a leaf whose Hessian the app computes (one H·v per element). */
    public static final int HESSIAN_LIMIT = 400;

    private TangentRuns() {
    }

    /** The choice when the program has its leaf (floats: an input or a param), else null (the run goes plain). */
    static TangentChoice usable(Program program, RunOptions options, TangentChoice choice) {
        if (choice == null) {
            return null;
        }
        for (Leaf l : program.check(options.dtype())) {
            if (l.name().equals(choice.leaf()) && l.kind() != Leaf.Kind.LABELS) {
                return choice;
            }
        }
        return null;
    }

    /** The direction tensor of a choice, shaped like its leaf. */
    public static Tensor direction(Program program, RunOptions options, TangentChoice choice) {
        Leaf leaf = Directional.leaf(program, options, choice.leaf(), false);
        return Direction.parse("tangent", choice.direction(), leaf.shape(), options.dtype(), options.seed());
    }

    /**
     * {@code run}, carrying the tangent when {@code choice} is not null: J·v in the forward pass, the
     * tangents of the gradients in the backward pass, all recorded in the trace.
     */
    public static ProgramRun carrying(Program program, RunOptions options, TangentChoice choice, Supplier<ProgramRun> run) {
        if (choice == null) {
            return run.get();
        }
        return Directional.traced(program, options, choice.leaf(), direction(program, options, choice), run);
    }

    /** Told how far a Hessian is (columns done of all), from the worker thread; true to go on. */
    public interface Columns {
        boolean done(int columns, int of);
    }

    /**
     * The Hessian of the objective with respect to {@code leaf} (n × n for its n elements, at most
     * {@link #HESSIAN_LIMIT}), column j being H·eⱼ by forward-over-reverse; null when stopped.
     */
    public static Tensor hessian(Program program, RunOptions options, String leaf, Columns progress) {
        Leaf l = Directional.leaf(program, options, leaf, true);
        int n = (int) Shapes.numel(l.shape());
        if (n > HESSIAN_LIMIT) {
            throw new io.gradscope.engine.GradscopeException("'" + leaf + "' has " + n + " elements: its Hessian is shown for at most "
                    + HESSIAN_LIMIT);
        }
        double[] h = new double[n * n];
        for (int j = 0; j < n; j++) {
            double[] e = new double[n];
            e[j] = 1;
            Tensor col = Directional.hvp(program, options, leaf, Tensor.fromDoubles(options.dtype(), e, l.shape()),
                    Hvp.Method.FORWARD_OVER_REVERSE);
            double[] c = col.toDoubleArray();
            for (int i = 0; i < n; i++) {
                h[i * n + j] = c[i];
            }
            if (!progress.done(j + 1, n) || Thread.currentThread().isInterrupted()) {
                return null;
            }
        }
        return Tensor.of(h, n, n);
    }
}
