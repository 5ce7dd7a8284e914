package io.gradscope.engine.jacobian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.autograd.Node;
import io.gradscope.engine.run.Program;
import io.gradscope.engine.run.RunOptions;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import io.gradscope.engine.trace.Recorder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * "Why is this entry nonzero?" ({@link EntryPaths}) for every entry of small Jacobians, against
 * independent computations: the path counts against products of the ops' rules as dense 0/1
 * matrices (a count matrix per value, multiplied along the graph), the shortest path's length
 * against the same product in min-plus, every nonzero of the dense float64 Jacobian having a local
 * path, each step of the shortest path in its op's rule, and each cut of an entry that only the
 * global pattern has being a step the global rule has and the local one lacks, at a ReLU's
 * non-positive input or a max pool's loser (checked on the recorded values).
 */
class EntryPathsTest {
    static Stream<Arguments> programs() {
        return Stream.of(
                // Two paths a step (through relu and through tanh); relu cuts one where x @ W < 0, tanh's stays.
                Arguments.of("x = input(3, 4, grad=True)\nW = param(4, 5)\na = x @ W\nh = relu(a)\ny = h + tanh(a)\nloss = sum(y)\n",
                        "y", "W", false),
                Arguments.of("x = input(3, 4, grad=True)\nW = param(4, 5)\na = x @ W\nh = relu(a)\ny = h + tanh(a)\nloss = sum(y)\n",
                        "y", "x", false),
                // Through relu only: where x @ W < 0 every path is cut.
                Arguments.of("x = input(3, 4, grad=True)\nW = param(4, 5)\nh = relu(x @ W)\ny = h * h\nloss = sum(y)\n",
                        "y", "W", true),
                // A convolution, a ReLU and a 2x2 max pool: the losers and the negative inputs are cut.
                Arguments.of("x = input(1, 2, 6, 6, grad=True)\nw = param(3, 2, 3, 3)\nc = relu(conv2d(x, w, padding=1))\n"
                        + "p = max_pool2d(c, 2)\nloss = sum(p)\n", "p", "x", true));
    }

    @ParameterizedTest
    @MethodSource("programs")
    void pathsMatchTheRulesProductsAndTheDenseJacobiansNonzeros(String source, String of, String wrt, boolean cutsExpected) {
        GraphJacobian j = ProgramJacobians.of(Program.parse("p.grad", source), new RunOptions(DType.FLOAT64, 7, Map.of()), of, wrt);
        SparseMatrix dense = Jacobians.denseByRows(j);
        double[][] global = counts(j, Sparsity.GLOBAL, false);
        double[][] local = counts(j, Sparsity.LOCAL, false);
        double[][] steps = counts(j, Sparsity.LOCAL, true);
        Map<Long, Node> byId = new HashMap<>();
        j.nodes().forEach(n -> byId.put(n.id(), n));
        int both = 0;
        int globalOnly = 0;
        int zero = 0;
        for (int i = 0; i < j.rows(); i++) {
            for (int c = 0; c < j.cols(); c++) {
                EntryPaths why = EntryPaths.of(j, i, c, null);
                String at = "entry (" + i + ", " + c + "): " + why.describe();
                assertEquals(global[i][c], why.globalPaths(), at);
                assertEquals(local[i][c], why.localPaths(), at);
                if (dense.get(i, c) != 0) {
                    assertTrue(why.localPaths() > 0, "a nonzero of the dense Jacobian has a local path: " + at);
                }
                if (why.localPaths() > 0) {
                    both++;
                    assertEquals(steps[i][c], why.shortest().size() - 1, "the fewest steps: " + at);
                    checkPath(j, byId, why.shortest(), i, c, Sparsity.LOCAL, at);
                } else if (why.globalPaths() > 0) {
                    globalOnly++;
                    assertEquals(0, dense.get(i, c), at);
                    assertFalse(why.cuts().isEmpty(), at);
                    for (EntryPaths.Cut cut : why.cuts()) {
                        checkCut(byId.get(cut.node()), cut, at);
                    }
                    checkPath(j, byId, why.shortest(), i, c, Sparsity.GLOBAL, at);
                } else {
                    zero++;
                    assertEquals(0, dense.get(i, c), at);
                    assertTrue(why.shortest().isEmpty(), at);
                }
            }
        }
        assertTrue(both > 0 && zero > 0 && (globalOnly > 0) == cutsExpected, "each kind of entry occurs: " + both + ", " + globalOnly + ", " + zero);
    }

    /** The path starts at (wrt, c), ends at (of, i), and each step is in the rule of {@code kind} of the op it enters. */
    private static void checkPath(GraphJacobian j, Map<Long, Node> byId, List<EntryPaths.Step> path, int i, int c, Sparsity kind,
                                  String at) {
        EntryPaths.Step first = path.get(0);
        EntryPaths.Step last = path.get(path.size() - 1);
        assertEquals(Node.of(j.wrt()).id(), first.node(), at);
        assertEquals(c, first.element(), at);
        assertEquals(Node.of(j.output()).id(), last.node(), at);
        assertEquals(i, last.element(), at);
        for (int s = 1; s < path.size(); s++) {
            Node n = byId.get(path.get(s).node());
            boolean found = false;
            for (int k = 0; k < n.inputs().size(); k++) {
                Node m = Node.of(n.inputs().get(k));
                if (m != null && m.id() == path.get(s - 1).node()
                        && rule(n, k, kind).contains(path.get(s).element(), path.get(s - 1).element())) {
                    found = true;
                }
            }
            assertTrue(found, "step " + s + " is in its op's rule: " + at);
        }
    }

    /** A cut is in the global rule and not the local one, at a ReLU's input <= 0 or an element a max pool's output is not. */
    private static void checkCut(Node n, EntryPaths.Cut cut, String at) {
        assertTrue(rule(n, cut.input(), Sparsity.GLOBAL).contains(cut.element(), cut.inputElement()), at);
        assertFalse(rule(n, cut.input(), Sparsity.LOCAL).contains(cut.element(), cut.inputElement()), at);
        double in = n.inputs().get(cut.input()).toDoubleArray()[cut.inputElement()];
        assertEquals(in, cut.inputValue(), at);
        String op = n.op().label();
        if (op.contains("relu")) {
            assertTrue(in <= 0, "relu's input " + in + ": " + at);
        } else if (op.contains("max")) {
            assertTrue(in < n.output().toDoubleArray()[cut.element()], "a loser of the window: " + at);
        } else {
            throw new AssertionError("a cut at " + op + ": " + at);
        }
    }

    private static Pattern rule(Node n, int k, Sparsity kind) {
        int[][] shapes = n.inputs().stream().map(Tensor::shape).toArray(int[][]::new);
        try (Recorder.Paused quiet = Recorder.pause()) {
            return kind == Sparsity.GLOBAL ? n.op().dependencies(k, shapes) : n.op().localDependencies(k, n.context());
        }
    }

    /**
     * Per output element and wrt element: the number of element paths (a product of 0/1 rule
     * matrices along the graph), or with {@code fewest} the fewest steps (the product in min-plus;
     * infinity where none).
     */
    private static double[][] counts(GraphJacobian j, Sparsity kind, boolean fewest) {
        int cols = j.cols();
        Map<Node, double[][]> at = new HashMap<>();
        Node wrt = Node.of(j.wrt());
        double[][] id = new double[cols][cols];
        for (int c = 0; c < cols; c++) {
            java.util.Arrays.fill(id[c], fewest ? Double.POSITIVE_INFINITY : 0);
            id[c][c] = fewest ? 0 : 1;
        }
        at.put(wrt, id);
        for (Node n : j.nodes()) {
            if (n == wrt) {
                continue;
            }
            int rows = (int) n.output().numel();
            double[][] m = new double[rows][cols];
            for (double[] r : m) {
                java.util.Arrays.fill(r, fewest ? Double.POSITIVE_INFINITY : 0);
            }
            for (int k = 0; k < n.inputs().size(); k++) {
                Tensor in = n.inputs().get(k);
                double[][] from = Node.of(in) == null || !in.requiresGrad() ? null : at.get(Node.of(in));
                if (from == null) {
                    continue;
                }
                Pattern r = rule(n, k, kind);
                for (int e = 0; e < rows; e++) {
                    for (int q = r.rowStart(e); q < r.rowEnd(e); q++) {
                        double[] src = from[r.column(q)];
                        for (int c = 0; c < cols; c++) {
                            m[e][c] = fewest ? Math.min(m[e][c], src[c] + 1) : m[e][c] + src[c];
                        }
                    }
                }
            }
            at.put(n, m);
        }
        return at.get(Node.of(j.output()));
    }
}
