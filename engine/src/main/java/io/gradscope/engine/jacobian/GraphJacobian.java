package io.gradscope.engine.jacobian;

import io.gradscope.engine.ops.GradMode;
import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Jacobian of a recorded tensor with respect to another (a leaf that needs a gradient, or an
 * intermediate value), as products over the recorded graph between them: a VJP is one reverse
 * sweep (each op's closed-form VJP), a JVP one forward sweep (each op's closed-form JVP) over the
 * same nodes, reusing the values of the forward pass that recorded them. Rows are the elements of
 * {@code of}, columns those of {@code wrt}, both flattened in C order.
 *
 * <pre>{@code
 * Tensor x = Tensor.of(new double[] {1, 2, 3}, 3).setRequiresGrad(true);
 * Tensor y = Ops.mul(Ops.sin(x), 2);
 * GraphJacobian j = GraphJacobian.of(y, x);
 * SparseMatrix dense = Jacobians.denseByRows(j);                       // 3 VJPs
 * Pattern p = j.pattern(Sparsity.GLOBAL);                                // the diagonal
 * SparseMatrix same = Jacobians.compressed(j, p, Colorings.color(p, Coloring.Kind.ROW, VertexOrder.NATURAL)); // 1 VJP
 * }</pre>
 */
public final class GraphJacobian implements JacobianOperator {
    private final Subgraph graph;
    private int vjps;
    private int jvps;
    private final Map<Sparsity, io.gradscope.engine.sparse.IndexSets> sets = new java.util.EnumMap<>(Sparsity.class);

    private GraphJacobian(Subgraph graph) {
        this.graph = graph;
    }

    /**
     * The Jacobian of {@code of} with respect to {@code wrt}; {@code wrt} must need a gradient (a
     * {@link io.gradscope.engine.GradscopeException} says so otherwise).
     */
    public static GraphJacobian of(Tensor of, Tensor wrt) {
        return new GraphJacobian(Subgraph.between(of, wrt));
    }

    /** The recorded nodes between the two ends (for {@link EntryPaths}). */
    Subgraph graph() {
        return graph;
    }

    public Tensor output() {
        return graph.of;
    }

    public Tensor wrt() {
        return graph.wrt;
    }

    /** The nodes the products visit, in creation order (empty when the output does not depend on wrt). */
    public List<Node> nodes() {
        return graph.nodes;
    }

    @Override
    public int rows() {
        return (int) graph.of.numel();
    }

    @Override
    public int cols() {
        return (int) graph.wrt.numel();
    }

    @Override
    public int vjps() {
        return vjps;
    }

    @Override
    public int jvps() {
        return jvps;
    }

    /** The sparsity pattern of this Jacobian from the ops' dependency rules, without evaluating it. */
    public Pattern pattern(Sparsity kind) {
        return pattern(kind, null);
    }

    /**
     * The same, asking {@code cancelled} as it goes (null: never): when it says yes, an {@link
     * io.gradscope.engine.sparse.IndexSets.Cancelled} is thrown and nothing is kept.
     */
    public Pattern pattern(Sparsity kind, java.util.function.BooleanSupplier cancelled) {
        return sets(kind, cancelled).toPattern();
    }

    /** The index sets of the rows, kept from an estimate for the pattern after it (they are compact). */
    private io.gradscope.engine.sparse.IndexSets sets(Sparsity kind, java.util.function.BooleanSupplier cancelled) {
        io.gradscope.engine.sparse.IndexSets s = sets.get(kind);
        if (s == null) {
            s = kind.sets(graph, cancelled);
            sets.put(kind, s);
        }
        return s;
    }

    /**
     * The Jacobian's size, nonzeros and least colors, from the compact index sets (no pattern is
     * built: resnet18's fc by its first convolution's weight, 9.4 M nonzeros, takes a few seconds and
     * under 200 MB), and the forward flops of the nodes between (for a time). {@code cancelled} as in
     * {@link #pattern(Sparsity, java.util.function.BooleanSupplier)}.
     */
    public JacobianEstimate estimate(Sparsity kind, java.util.function.BooleanSupplier cancelled) {
        io.gradscope.engine.sparse.IndexSets rows = sets(kind, cancelled);
        return new JacobianEstimate(rows(), cols(), rows.nonzeros(), rows.maxCount(), rows.maxColumnCount(), forwardFlops());
    }

    /** The flops of the nodes between {@code wrt} and the output, forward (a product costs a few times this). */
    public long forwardFlops() {
        long flops = 0;
        for (Node n : graph.nodes) {
            if (n != graph.wrtNode) {
                int[][] shapes = n.inputs().stream().map(Tensor::shape).toArray(int[][]::new);
                flops += n.op().flops(shapes, n.output().shape());
            }
        }
        return flops;
    }

    @Override
    public double[] vjp(double[] u) {
        try (Recorder.Paused quiet = Recorder.pause()) {
            return vjp(Tensor.fromDoubles(graph.of.dtype(), graph.of.device(), u, graph.of.shape())).toDoubleArray();
        }
    }

    @Override
    public double[] jvp(double[] v) {
        try (Recorder.Paused quiet = Recorder.pause()) {
            return jvp(Tensor.fromDoubles(graph.wrt.dtype(), graph.wrt.device(), v, graph.wrt.shape())).toDoubleArray();
        }
    }

    /** {@code uᵀJ} as a tensor shaped like {@code wrt}, for {@code u} shaped like the output. */
    public Tensor vjp(Tensor u) {
        vjps++;
        return reverse(u, false);
    }

    /**
     * {@code uᵀJ} with its own graph recorded, so it can be differentiated again (the gradient of a
     * scalar output recorded this way is what a Hessian is the Jacobian of). Not counted as a VJP.
     */
    Tensor vjpRecorded(Tensor u) {
        return reverse(u, true);
    }

    /** {@code J v} as a tensor shaped like the output, for {@code v} shaped like {@code wrt}. */
    public Tensor jvp(Tensor v) {
        jvps++;
        check(v, graph.wrt, "tangent");
        if (graph.nodes.isEmpty()) {
            try (Recorder.Paused quiet = Recorder.pause()) {
                return zeros(graph.of);
            }
        }
        Map<Node, Tensor> tangent = new HashMap<>();
        Map<Node, Integer> uses = new HashMap<>(graph.consumers);
        tangent.put(graph.wrtNode, v);
        // The products' own arithmetic never enters an open trace.
        try (Recorder.Paused quiet = Recorder.pause(); var off = GradMode.disable()) {
            for (Node n : graph.nodes) {
                if (n == graph.wrtNode) {
                    continue;
                }
                List<Tensor> inputs = n.inputs();
                Tensor[] t = new Tensor[inputs.size()];
                for (int i = 0; i < t.length; i++) {
                    Tensor in = inputs.get(i);
                    Node m = graph.member(in);
                    if (m != null) {
                        t[i] = tangent.get(m);
                        if (uses.merge(m, -1, Integer::sum) == 0 && m != graph.ofNode) {
                            tangent.remove(m);
                        }
                    } else if (in.dtype().isFloating()) {
                        t[i] = Tensor.zeros(in.dtype(), in.device(), in.shape());
                    }
                }
                tangent.put(n, n.op().jvp(n.context(), t));
            }
        }
        return tangent.get(graph.ofNode);
    }

    private Tensor reverse(Tensor u, boolean record) {
        check(u, graph.of, "cotangent");
        if (graph.nodes.isEmpty()) {
            try (Recorder.Paused quiet = Recorder.pause()) {
                return zeros(graph.wrt);
            }
        }
        Map<Node, Tensor> upstream = new HashMap<>();
        upstream.put(graph.ofNode, u);
        List<Node> nodes = graph.nodes;
        try (Recorder.Paused quiet = Recorder.pause(); var mode = record ? GradMode.enable() : GradMode.disable()) {
            for (int k = nodes.size() - 1; k >= 0; k--) {
                Node n = nodes.get(k);
                Tensor g = upstream.remove(n);
                if (n == graph.wrtNode) {
                    return g != null ? g : zeros(graph.wrt);
                }
                if (g == null) {
                    continue;
                }
                Tensor[] grads = n.op().vjp(n.context(), g);
                List<Tensor> inputs = n.inputs();
                for (int i = 0; i < inputs.size(); i++) {
                    Node m = graph.member(inputs.get(i));
                    if (m != null && grads[i] != null) {
                        // Note [Fan-out accumulation] in BackwardRun: contributions are summed.
                        upstream.merge(m, grads[i], Ops::add);
                    }
                }
            }
        }
        return zeros(graph.wrt);
    }

    private static void check(Tensor t, Tensor like, String what) {
        if (!Arrays.equals(t.shape(), like.shape())) {
            throw new IllegalArgumentException("a " + what + " must have shape " + Arrays.toString(like.shape()) + ", not "
                    + Arrays.toString(t.shape()));
        }
    }

    private static Tensor zeros(Tensor like) {
        return Tensor.zeros(like.dtype(), like.device(), like.shape());
    }
}
