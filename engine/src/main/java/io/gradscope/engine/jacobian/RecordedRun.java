package io.gradscope.engine.jacobian;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.scalar.ScalarExpansion;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Trace;
import io.gradscope.engine.trace.TraceEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.Map;

/**
 * Derivatives of a run already recorded, asked for by the trace's ids (a {@code TraceGraph}
 * vertex's {@code id}, a {@code BackwardStep}'s {@code node}): the Jacobian of one recorded value
 * with respect to another, over the recorded graph between them, and the scalar graph of one
 * backward step. Nothing is evaluated again and no graph is matched: the trace holds the values, and
 * each value its autograd node. It needs a trace that kept its tensors (a run that retained its
 * values, as the app's and the command line's do).
 *
 * <pre>{@code
 * ProgramRun run = program.run(options);
 * RecordedRun r = RecordedRun.of(run.trace());
 * GraphJacobian j = r.jacobian(r.idOf("h"), r.idOf("W1"));
 * RunJacobian c = r.jacobian(r.idOf("h"), r.idOf("W1"), Sparsity.GLOBAL, ColoringChoice.CHEAPER);
 * ScalarExpansion e = r.scalarBackward(r.idOf("h"));   // its scalars carry their gradients
 * }</pre>
 */
public final class RecordedRun {
    /** The most values between the two ends whose element dependencies are kept (else a nonzero lights them all). */
    public static final int MAX_PATH_NODES = 200;
    /** The most entries those dependencies may hold in all. */
    public static final long MAX_PATH_ENTRIES = 20_000_000L;

    private final Map<Long, Tensor> values = new HashMap<>();
    private final Map<Long, Tensor> upstream = new HashMap<>();
    private final Map<String, Long> names = new HashMap<>();
    private boolean stripped;

    private RecordedRun() {
    }

    /** The run recorded in {@code trace}: its leaves, forward ops, names and backward steps. */
    public static RecordedRun of(Trace trace) {
        RecordedRun r = new RecordedRun();
        for (TraceEvent e : trace.events()) {
            if (e instanceof TraceEvent.Leaf l) {
                r.value(l.node(), l.value());
                r.names.putIfAbsent(l.name(), l.node());
            } else if (e instanceof TraceEvent.OpForward f) {
                r.value(f.node(), f.value());
            } else if (e instanceof TraceEvent.Named n) {
                r.names.putIfAbsent(n.name(), n.node());
            } else if (e instanceof TraceEvent.BackwardStep b && b.upstream() != null) {
                r.upstream.putIfAbsent(b.node(), b.upstream());
            }
        }
        return r;
    }

    private void value(long id, Tensor t) {
        if (t == null || io.gradscope.engine.trace.NotRetained.is(t)) {
            stripped = true;
        } else {
            values.putIfAbsent(id, t);
        }
    }

    /** The id of the value a statement named {@code name} (a leaf's or a computed value's), or -1. */
    public long idOf(String name) {
        return names.getOrDefault(name, -1L);
    }

    /** The recorded value with id {@code id}; a {@link GradscopeException} when there is none. */
    public Tensor value(long id) {
        Tensor t = values.get(id);
        if (t == null) {
            throw new GradscopeException(stripped ? "the run kept no values for it (run it with --retain all to keep every value)"
                    : "the run recorded no value with id " + id);
        }
        return t;
    }

    /**
     * The Jacobian of value {@code of} with respect to value {@code wrt} (a leaf with a gradient, or a
     * value computed from one, held as independent: the paths through it).
     */
    public GraphJacobian jacobian(long of, long wrt) {
        return GraphJacobian.of(value(of), value(wrt));
    }

    /** The Hessian of the scalar value {@code of} with respect to {@code wrt}. */
    public GraphJacobian hessian(long of, long wrt) {
        return Hessians.of(value(of), value(wrt));
    }

    /**
     * The Jacobian of {@code of} with respect to {@code wrt}: its pattern found as {@code sparsity}
     * says, colored as {@code coloring} says, evaluated compressed; with, for every recorded value
     * between the two, which of its elements depend on which (kept up to {@link #MAX_PATH_NODES}
     * values and {@link #MAX_PATH_ENTRIES} entries), so a nonzero's paths can be found without
     * evaluating anything again ({@link RunJacobian#path}).
     */
    public RunJacobian jacobian(long of, long wrt, Sparsity sparsity, ColoringChoice coloring) {
        return jacobian(of, wrt, sparsity, coloring, null);
    }

    /**
     * The same, asking {@code cancelled} while the pattern is found and before each product (null:
     * never); when it says yes, {@link io.gradscope.engine.sparse.IndexSets.Cancelled} is thrown.
     */
    public RunJacobian jacobian(long of, long wrt, Sparsity sparsity, ColoringChoice coloring, BooleanSupplier cancelled) {
        return jacobian(of, wrt, sparsity, coloring, cancelled, Watched.Progress.NONE);
    }

    /** The same, telling {@code progress} after each product how many were taken of how many (the colors). */
    public RunJacobian jacobian(long of, long wrt, Sparsity sparsity, ColoringChoice coloring, BooleanSupplier cancelled,
                                Watched.Progress progress) {
        return jacobian(of, wrt, sparsity, coloring, cancelled, progress, Part.ALL);
    }

    /**
     * What of a Jacobian to evaluate: all of it, its pattern alone (no products: the values are left
     * zero), or a block of its rows or its columns (JacobianBlock: the pattern's other entries
     * left out, the coloring and the products the block's, at most its rows' or columns' count).
     */
    public record Part(boolean evaluate, int rowsFrom, int rowsTo, int colsFrom, int colsTo) {
        private static final int END = Integer.MAX_VALUE;
        public static final Part ALL = new Part(true, 0, END, 0, END);
        public static final Part PATTERN = new Part(false, 0, END, 0, END);

        /** Rows {@code from} (included) to {@code to} (excluded), evaluated. */
        public static Part rows(int from, int to) {
            return new Part(true, from, to, 0, END);
        }

        /** Columns {@code from} (included) to {@code to} (excluded), evaluated. */
        public static Part columns(int from, int to) {
            return new Part(true, 0, END, from, to);
        }

        /** Whether only some rows or columns are kept. */
        public boolean block() {
            return rowsFrom > 0 || rowsTo < END || colsFrom > 0 || colsTo < END;
        }
    }

    /** The same, evaluating only {@code part} of it. */
    public RunJacobian jacobian(long of, long wrt, Sparsity sparsity, ColoringChoice coloring, BooleanSupplier cancelled,
                                Watched.Progress progress, Part part) {
        GraphJacobian j = jacobian(of, wrt);
        Pattern p = j.pattern(sparsity, cancelled);
        Coloring c;
        SparseMatrix result;
        if (part.block()) {
            JacobianBlock.Evaluated e = JacobianBlock.of(j, p, part.rowsFrom(), part.rowsTo(), part.colsFrom(), part.colsTo())
                    .evaluate(coloring, part.evaluate(), cancelled, progress);
            p = e.pattern();
            c = e.coloring();
            result = e.values();
        } else {
            c = coloring.color(p);
            result = part.evaluate() ? Jacobians.compressed(new Watched(j, cancelled, progress, c.count()), p, c)
                    : new SparseMatrix(p, new double[p.nnz()]);
        }
        List<Node> mids = new ArrayList<>();
        long entries = 0;
        for (Node n : j.nodes()) {
            if (n.id() != of && n.id() != wrt) {
                mids.add(n);
                entries += n.output().numel() * (j.rows() + j.cols());
            }
        }
        boolean keep = mids.size() <= MAX_PATH_NODES && entries <= MAX_PATH_ENTRIES;
        List<RunJacobian.Between> between = new ArrayList<>();
        for (Node n : mids) {
            between.add(!keep ? new RunJacobian.Between(n.id(), null, null) : new RunJacobian.Between(n.id(),
                    GraphJacobian.of(n.output(), j.wrt()).pattern(sparsity, cancelled).transpose(),
                    GraphJacobian.of(j.output(), n.output()).pattern(sparsity, cancelled)));
        }
        return new RunJacobian(of, wrt, j.output().shape(), j.wrt().shape(), p, c, Colorings.lowerBound(p, c.kind()),
                Colorings.isValid(p, c), result, RunJacobian.compressedPattern(p, c), j.vjps(), j.jvps(), !j.nodes().isEmpty(),
                List.copyOf(between));
    }

    /** The complete upstream gradient the backward pass gave value {@code id}, or null when it did not reach it. */
    public Tensor upstream(long id) {
        return upstream.get(id);
    }

    /**
     * The backward step of value {@code id} written out in scalars: every input element a scalar
     * {@link io.gradscope.engine.scalar.Value}, every output element built from them by the op's
     * {@link ScalarExpansion}, and the backward pass of ⟨outputs, recorded upstream gradient⟩ run on
     * them, so each scalar carries its value and its gradient and the inputs' gradients are the
     * node's VJP summed over scalar paths. Null when the value is a leaf or the backward pass did not
     * reach it; a {@link GradscopeException} when the expansion does not cover its op or it is too large.
     */
    public ScalarExpansion scalarBackward(long id) {
        Node node = Node.of(value(id));
        Tensor up = upstream.get(id);
        if (node == null || node.isLeaf() || up == null) {
            return null;
        }
        ScalarExpansion e = ScalarExpansion.of(node.op(), node.inputs().toArray(new Tensor[0]));
        e.dot(up.toDoubleArray()).backward();
        return e;
    }
}
