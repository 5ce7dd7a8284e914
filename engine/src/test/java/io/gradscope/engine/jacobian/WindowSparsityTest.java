package io.gradscope.engine.jacobian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.ops.OpRegistry;
import io.gradscope.engine.ops.Ops;
import io.gradscope.engine.sparse.IndexSets;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.tensor.Tensor;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Patterns propagated through window ops (read a row at a time from their windows, sets kept as
 * runs) against the dense Jacobian, windows that reach into the padding included; the propagation
 * against the plain boolean product of every node's built rule; the estimate's counts against the
 * built pattern's; cancelling.
 */
class WindowSparsityTest {
    record Case(String name, String op, Map<String, Object> attrs, int[] x, int[] w) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("conv2d padding 1", "conv2d", Map.of("padding", new int[] {1, 1}), new int[] {1, 2, 4, 5}, new int[] {3, 2, 3, 3}),
                new Case("conv2d stride 2 padding 2 dilation 2 (taps in the padding only)", "conv2d",
                        Map.of("stride", new int[] {2, 2}, "padding", new int[] {2, 2}, "dilation", new int[] {2, 2}),
                        new int[] {2, 2, 5, 4}, new int[] {2, 2, 3, 3}),
                new Case("conv2d groups 2", "conv2d", Map.of("groups", 2, "padding", new int[] {1, 0}), new int[] {1, 4, 3, 3},
                        new int[] {4, 2, 2, 3}),
                new Case("conv2d unbatched", "conv2d", Map.of("padding", new int[] {1, 1}), new int[] {2, 3, 3}, new int[] {2, 2, 3, 3}),
                new Case("conv1d padding 2 stride 2", "conv1d", Map.of("stride", new int[] {2}, "padding", new int[] {2}),
                        new int[] {1, 2, 5}, new int[] {2, 2, 3}),
                new Case("max_pool2d padding 1 stride 2", "max_pool2d",
                        Map.of("kernel_size", new int[] {3, 3}, "stride", new int[] {2, 2}, "padding", new int[] {1, 1}),
                        new int[] {1, 2, 5, 6}, null),
                new Case("max_pool2d ceil_mode", "max_pool2d",
                        Map.of("kernel_size", new int[] {2, 2}, "stride", new int[] {2, 2}, "ceil_mode", true),
                        new int[] {1, 1, 5, 5}, null),
                new Case("avg_pool2d padding 1", "avg_pool2d",
                        Map.of("kernel_size", new int[] {3, 3}, "stride", new int[] {2, 2}, "padding", new int[] {1, 1}),
                        new int[] {2, 1, 4, 5}, null),
                new Case("max_pool1d padding 1", "max_pool1d", Map.of("kernel_size", new int[] {3}, "padding", new int[] {1}),
                        new int[] {1, 2, 6}, null));
    }

    private static Tensor random(Random r, int[] shape) {
        int n = 1;
        for (int d : shape) {
            n *= d;
        }
        return Tensor.of(r.doubles(n, -1, 1).toArray(), shape).setRequiresGrad(true);
    }

    private static Tensor apply(Case c, Tensor x, Tensor w) {
        var op = OpRegistry.create(c.op(), new LinkedHashMap<>(c.attrs()));
        return w == null ? Ops.apply(op, x) : Ops.apply(op, x, w);
    }

    /**
     * The union of the dense Jacobians' nonzeros over inputs that make every entry show: random
     * values, and for a max pool each element alone large in turn (it then wins every window it is in).
     */
    private static Pattern denseUnion(Case c, boolean byWeight) {
        Random r = new Random(11);
        Pattern union = null;
        int n = 1;
        for (int d : c.x()) {
            n *= d;
        }
        int draws = c.op().startsWith("max") ? n : 2;
        for (int k = 0; k < draws; k++) {
            Tensor x = random(r, c.x());
            if (c.op().startsWith("max")) {
                double[] v = x.toDoubleArray();
                v[k] = 10;
                x = Tensor.of(v, c.x()).setRequiresGrad(true);
            }
            Tensor w = c.w() == null ? null : random(r, c.w());
            Tensor y = apply(c, x, w);
            Pattern p = Jacobians.denseByRows(GraphJacobian.of(y, byWeight ? w : x)).nonzeros();
            union = union == null ? p : union.union(p);
        }
        return union;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void windowOpsPatternIsTheDenseJacobiansNonzeros(Case c) {
        for (boolean byWeight : c.w() == null ? new boolean[] {false} : new boolean[] {false, true}) {
            Random r = new Random(3);
            Tensor x = random(r, c.x());
            Tensor w = c.w() == null ? null : random(r, c.w());
            Tensor y = apply(c, x, w);
            GraphJacobian j = GraphJacobian.of(y, byWeight ? w : x);
            Pattern global = j.pattern(Sparsity.GLOBAL);
            String what = c + (byWeight ? " by the weight" : " by x");
            assertEquals(denseUnion(c, byWeight), global, what);
            Pattern local = j.pattern(Sparsity.LOCAL);
            Pattern here = Jacobians.denseByRows(j).nonzeros();
            assertTrue(here.subsetOf(local) && local.subsetOf(global), what + ": dense ⊆ local ⊆ global");
            assertEquals(global, Pattern.of(Node.of(y).op().dependencyRows(byWeight ? 1 : 0,
                    Node.of(y).inputs().stream().map(Tensor::shape).toArray(int[][]::new))), what + ": the rows read one at a time");
        }
    }

    /** A small convnet: conv, relu, max pool, conv, the sum of a channel. */
    private static Tensor convnet(Tensor x, Tensor w1, Tensor w2) {
        Tensor c = Ops.apply(OpRegistry.create("conv2d", new LinkedHashMap<>(Map.of("padding", new int[] {1, 1}))), x, w1);
        Tensor p = Ops.apply(OpRegistry.create("max_pool2d", new LinkedHashMap<>(Map.of("kernel_size", new int[] {2, 2}))), Ops.relu(c));
        Tensor d = Ops.apply(OpRegistry.create("conv2d", new LinkedHashMap<>(Map.of("stride", new int[] {2, 2}))), p, w2);
        return Ops.add(Ops.tanh(d), Ops.mul(d, d));
    }

    /** The pattern as products of each node's built rule along the graph (the plain way, before index sets). */
    private static Pattern chained(GraphJacobian j) {
        Map<Node, Pattern> at = new HashMap<>();
        Node wrt = Node.of(j.wrt());
        at.put(wrt, Pattern.identity(j.cols()));
        Pattern last = null;
        for (Node n : j.nodes()) {
            if (n == wrt) {
                continue;
            }
            List<Tensor> in = n.inputs();
            int[][] shapes = in.stream().map(Tensor::shape).toArray(int[][]::new);
            Pattern acc = null;
            for (int i = 0; i < in.size(); i++) {
                Node m = Node.of(in.get(i));
                if (m != null && at.containsKey(m) && in.get(i).requiresGrad()) {
                    Pattern term = n.op().dependencies(i, shapes).times(at.get(m));
                    acc = acc == null ? term : acc.union(term);
                }
            }
            at.put(n, acc);
            last = acc;
        }
        return last;
    }

    @Test
    void propagatedSetsEqualTheChainOfBuiltRulesAndCountsMatch() {
        Random r = new Random(5);
        Tensor x = random(r, new int[] {1, 3, 8, 8});
        Tensor w1 = random(r, new int[] {4, 3, 3, 3});
        Tensor w2 = random(r, new int[] {2, 4, 2, 2});
        Tensor y = convnet(x, w1, w2);
        for (Tensor wrt : new Tensor[] {x, w1, w2}) {
            GraphJacobian j = GraphJacobian.of(y, wrt);
            Pattern p = j.pattern(Sparsity.GLOBAL);
            assertEquals(chained(j), p);
            assertTrue(Jacobians.denseByRows(j).nonzeros().subsetOf(p));
            JacobianEstimate e = j.estimate(Sparsity.GLOBAL, null);
            assertEquals(p.nnz(), e.nonzeros(), "nonzeros counted before the pattern is built");
            assertEquals(p.maxRowCount(), e.maxRowNonzeros());
            assertEquals(p.maxColumnCount(), e.maxColumnNonzeros());
            assertEquals(Math.min(p.maxRowCount(), p.maxColumnCount()), e.colorsLowerBound());
        }
    }

    @Test
    void aCancelledPatternStopsWithCancelled() {
        Random r = new Random(5);
        Tensor x = random(r, new int[] {1, 3, 64, 64});
        Tensor y = convnet(x, random(r, new int[] {4, 3, 3, 3}), random(r, new int[] {2, 4, 2, 2}));
        int[] asked = new int[1];
        assertThrows(IndexSets.Cancelled.class, () -> GraphJacobian.of(y, x).pattern(Sparsity.GLOBAL, () -> ++asked[0] > 2));
        assertEquals(3, asked[0], "asked until it said yes, then stopped");
    }
}
