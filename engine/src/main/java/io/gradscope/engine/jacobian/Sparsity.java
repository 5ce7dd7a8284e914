package io.gradscope.engine.jacobian;

import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.ops.Op;
import io.gradscope.engine.ops.OpContext;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

    Pattern of(Subgraph g) {
        int rows = (int) g.of.numel();
        int cols = (int) g.wrt.numel();
        if (g.nodes.isEmpty()) {
            return Pattern.empty(rows, cols);
        }
        Map<Node, Pattern> pattern = new HashMap<>();
        Map<Node, Integer> uses = new HashMap<>(g.consumers);
        pattern.put(g.wrtNode, Pattern.identity(cols));
        for (Node n : g.nodes) {
            if (n == g.wrtNode) {
                continue;
            }
            List<Tensor> inputs = n.inputs();
            OpContext ctx = n.context();
            int[][] shapes = inputs.stream().map(Tensor::shape).toArray(int[][]::new);
            int out = (int) n.output().numel();
            Pattern acc = null;
            for (int i = 0; i < inputs.size(); i++) {
                Node m = g.member(inputs.get(i));
                if (m == null) {
                    continue;
                }
                Pattern rule = rule(n.op(), i, shapes, ctx);
                if (rule == null) {
                    // NOTE: an op without a dependency rule is taken as dense (every output on every input).
                    rule = Pattern.dense(out, shapes[i].length == 0 ? 1 : (int) inputs.get(i).numel());
                }
                Pattern term = rule.times(pattern.get(m));
                acc = acc == null ? term : acc.union(term);
                if (uses.merge(m, -1, Integer::sum) == 0 && m != g.ofNode) {
                    pattern.remove(m);
                }
            }
            pattern.put(n, acc);
        }
        return pattern.get(g.ofNode);
    }

    private Pattern rule(Op op, int input, int[][] shapes, OpContext ctx) {
        if (this == GLOBAL) {
            return op.dependencies(input, shapes);
        }
        try (Recorder.Paused quiet = Recorder.pause()) {
            return op.localDependencies(input, ctx);
        }
    }
}
