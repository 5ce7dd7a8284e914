package io.gradscope.engine.jacobian;

import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.sparse.IndexSets;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.Rows;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Sparsity detection without evaluating the Jacobian: each node's pattern with respect to
 * {@code wrt} is the union, over its inputs, of the op's dependency rule times the input's pattern
 * (a boolean product, as index sets are propagated by SparseConnectivityTracer). Cancellation is
 * not seen, so a pattern may hold entries that are zero; it never misses one.
 *
 * <pre>{@code
 * Pattern p = GraphJacobian.of(y, x).pattern(Sparsity.GLOBAL);
 * }</pre>
 */
public enum Sparsity {
    /** For every value of the inputs: each op's {@link Op#dependencies} rule. */
    GLOBAL,
    /**
     * At the values of the recorded forward pass, each op's {@link Op#localDependencies}: a subset
     * of the global pattern (a ReLU at a negative input, the elements of amax that lost).
     */
    LOCAL;

    /** The command-line name: {@code global}, {@code local}. */
    public String flag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The index set of every element of {@code of} (the Jacobian's rows, compact: see {@link
     * IndexSets}), each node's found from its inputs' and its op's rule read a row at a time; a
     * node's sets are let go once its last user has them. {@code cancelled} is asked as it goes.
     */
    IndexSets sets(Subgraph g, BooleanSupplier cancelled) {
        int rows = (int) g.of.numel();
        int cols = (int) g.wrt.numel();
        if (g.nodes.isEmpty()) {
            return IndexSets.none(rows, cols);
        }
        Map<Node, IndexSets> sets = new HashMap<>();
        Map<Node, Integer> uses = new HashMap<>(g.consumers);
        sets.put(g.wrtNode, IndexSets.identity(cols));
        for (Node n : g.nodes) {
            if (n == g.wrtNode) {
                continue;
            }
            List<Tensor> inputs = n.inputs();
            OpContext ctx = n.context();
            int[][] shapes = inputs.stream().map(Tensor::shape).toArray(int[][]::new);
            int out = (int) n.output().numel();
            List<IndexSets.Input> terms = new ArrayList<>();
            for (int i = 0; i < inputs.size(); i++) {
                Node m = g.member(inputs.get(i));
                if (m == null) {
                    continue;
                }
                Rows rule = rule(n.op(), i, shapes, ctx);
                if (rule == null) {
                    // an op without a dependency rule is taken as dense (every output on every input).
                    terms.add(new IndexSets.Input(IndexSets.all(1, sets.get(m)), Pattern.dense(out, 1)));
                } else {
                    terms.add(new IndexSets.Input(sets.get(m), rule));
                }
            }
            sets.put(n, IndexSets.propagate(out, cols, terms, cancelled));
            for (int i = 0; i < inputs.size(); i++) {
                Node m = g.member(inputs.get(i));
                if (m != null && uses.merge(m, -1, Integer::sum) == 0 && m != g.ofNode) {
                    sets.remove(m);
                }
            }
        }
        return sets.get(g.ofNode);
    }

    /** The op's rule for {@code input} of this kind, read a row at a time (null: the op has none). */
    Rows rule(Op op, int input, int[][] shapes, OpContext ctx) {
        if (this == GLOBAL) {
            return op.dependencyRows(input, shapes);
        }
        try (Recorder.Paused quiet = Recorder.pause()) {
            return op.localDependencyRows(input, ctx);
        }
    }
}
