package io.gradscope.engine.ops;

import io.gradscope.engine.autograd.Node;
import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.jacobian.GraphJacobian;
import io.gradscope.engine.jacobian.Jacobians;
import io.gradscope.engine.jacobian.Sparsity;
import io.gradscope.engine.sparse.Pattern;
import io.gradscope.engine.sparse.SparseMatrix;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every op's dependency rule against the dense Jacobian it describes, per op-table row and on extra
 * shapes where an op's output stops depending on an input (a softmax over one element, LayerNorm of
 * one column, attention with one visible key): the dense Jacobian's nonzeros lie in the local
 * pattern, the local pattern in the global one; the local pattern equals the dense nonzeros at the
 * row's values; and the global pattern equals the union of the dense nonzeros over random inputs
 * (plus, for each element, its column at an input where it alone is large: amax's winner, ReLU's
 * positive side).
 */
class DependencyRuleTest {

    /** A sample: an op and its inputs (float inputs get gradients). */
    record Sample(String name, Op op, List<Tensor> inputs) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Sample> samples() {
        List<Sample> out = new ArrayList<>();
        for (OpRow r : OpRow.load()) {
            if (!r.finite()) {
                continue; // a NaN or an infinity has no derivative worth a pattern (the edge rows check values only)
            }
            out.add(new Sample(r.toString(), r.create(), r.inputs().stream().map(a -> a.tensor(DType.FLOAT64)).toList()));
        }
        Random rnd = new Random(7);
        extra(out, "softmax", Map.of("axis", 1), rnd, new int[] {3, 1});
        extra(out, "log_softmax", Map.of("axis", 0), rnd, new int[] {1, 4});
        extra(out, "layer_norm", Map.of(), rnd, new int[] {3, 1}, new int[] {1}, new int[] {1});
        extra(out, "rms_norm", Map.of(), rnd, new int[] {3, 1}, new int[] {1});
        extra(out, "attention", Map.of(), rnd, new int[] {3, 2}, new int[] {1, 2}, new int[] {1, 3});
        extra(out, "attention", Map.of("causal", true), rnd, new int[] {5, 2}, new int[] {3, 2}, new int[] {3, 2});
        extra(out, "attention", Map.of("causal", true), rnd, new int[] {2, 2}, new int[] {4, 2}, new int[] {4, 3});
        extra(out, "pow", Map.of("exponent", 0.0), rnd, new int[] {4});
        extra(out, "pow", Map.of("exponent", 1.0), rnd, new int[] {4});
        extra(out, "logsumexp", Map.of("axis", new int[] {1}), rnd, new int[] {3, 1});
        extra(out, "mse", Map.of(), rnd, new int[] {2, 1}, new int[] {3});
        extra(out, "matmul", Map.of(), rnd, new int[] {2, 1, 3, 2}, new int[] {4, 2, 3});
        Tensor logits = Tensor.of(rnd.doubles(3, -1, 1).toArray(), 3, 1);
        out.add(new Sample("cross_entropy one class", OpRegistry.create("cross_entropy", Map.of()),
                List.of(logits, Tensor.ofLongs(new long[] {0, 0, 0}, 3))));
        // A weight tap that meets only the padding (stride 2 skips the one window that reaches x with it).
        extra(out, "conv1d", Map.of("stride", new int[] {2}, "padding", new int[] {2}), rnd, new int[] {1, 2, 1}, new int[] {2, 2, 3},
                new int[] {2});
        double inf = Double.POSITIVE_INFINITY;
        out.add(new Sample("max_pool1d a window of −∞ only (its first maximum is the padding)",
                OpRegistry.create("max_pool1d", new LinkedHashMap<>(Map.of("kernel_size", new int[] {3}, "padding", new int[] {1}))),
                List.of(Tensor.of(new double[] {-inf, -inf, 1, 2, 2, -inf}, 1, 1, 6))));
        out.add(new Sample("where, a condition of 0 and 7", OpRegistry.create("where", Map.of()),
                List.of(Tensor.ofLongs(new long[] {0, 7, 0}, 3), Tensor.of(rnd.doubles(3, -1, 1).toArray(), 3),
                        Tensor.of(rnd.doubles(2, -1, 1).toArray(), 2, 1))));
        out.add(new Sample("embedding of no indices", OpRegistry.create("embedding", Map.of()),
                List.of(Tensor.ofLongs(new long[0], 0), Tensor.of(rnd.doubles(6, -1, 1).toArray(), 3, 2))));
        return out.stream();
    }

    private static void extra(List<Sample> out, String op, Map<String, Object> attrs, Random rnd, int[]... shapes) {
        List<Tensor> in = new ArrayList<>();
        StringBuilder name = new StringBuilder(op + " " + attrs);
        for (int[] s : shapes) {
            in.add(Tensor.of(rnd.doubles((int) io.gradscope.engine.tensor.Shapes.numel(s), 0.3, 2).toArray(), s));
            name.append(" ").append(java.util.Arrays.toString(s));
        }
        out.add(new Sample(name.toString(), OpRegistry.create(op, new LinkedHashMap<>(attrs)), in));
    }

    /** The op applied to fresh copies of {@code values}: the output and the differentiable inputs. */
    private static Tensor[] apply(Sample s, List<double[]> values) {
        Tensor[] in = new Tensor[s.inputs().size()];
        for (int i = 0; i < in.length; i++) {
            Tensor t = s.inputs().get(i);
            in[i] = t.dtype().isFloating() ? Tensor.of(values.get(i), t.shape()).setRequiresGrad(true)
                    : Tensor.fromDoubles(t.dtype(), values.get(i), t.shape());
        }
        Tensor[] out = new Tensor[in.length + 1];
        out[0] = Ops.apply(s.op(), in);
        System.arraycopy(in, 0, out, 1, in.length);
        return out;
    }

    private static List<double[]> values(Sample s) {
        return s.inputs().stream().map(Tensor::toDoubleArray).toList();
    }

    private static int[][] shapes(Sample s) {
        return s.inputs().stream().map(Tensor::shape).toArray(int[][]::new);
    }

    @Test
    void everyOpHasADependencyRule() {
        Set<String> missing = new TreeSet<>();
        Set<String> seen = new TreeSet<>();
        samples().forEach(s -> {
            seen.add(s.op().name());
            for (int i = 0; i < s.inputs().size(); i++) {
                if (s.op().dependencies(i, shapes(s)) == null) {
                    missing.add(s.op().name());
                }
            }
        });
        assertTrue(missing.isEmpty(), "ops without a dependency rule: " + missing);
        Set<String> unchecked = new TreeSet<>(OpRegistry.names());
        unchecked.removeAll(seen);
        assertTrue(unchecked.isEmpty(), "ops whose rule no sample checks: " + unchecked);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void patternsHoldTheDenseJacobianAndLocalEqualsItHere(Sample s) {
        Tensor[] run = apply(s, values(s));
        for (int i = 0; i < s.inputs().size(); i++) {
            Pattern global = s.op().dependencies(i, shapes(s));
            assertNotNull(global, s + ": no rule for input " + i);
            assertEquals(run[0].numel(), global.rows(), s + ": rows of the rule for input " + i);
            assertEquals(s.inputs().get(i).numel(), global.cols(), s + ": columns of the rule for input " + i);
            if (!run[i + 1].requiresGrad()) {
                assertEquals(0, global.nnz(), s + ": an input without a derivative depends on nothing");
                continue;
            }
            Pattern local = s.op().localDependencies(i, Node.of(run[0]).context());
            Pattern dense = dense(run[0], run[i + 1], s + " input " + i);
            assertTrue(local.subsetOf(global), s + ": local pattern outside the global one, input " + i);
            assertEquals(dense, local, s + ": local pattern vs the dense Jacobian's nonzeros, input " + i);
            // The op seen as a graph of one node gives the same patterns.
            GraphJacobian j = GraphJacobian.of(run[0], run[i + 1]);
            assertEquals(global, j.pattern(Sparsity.GLOBAL), s + ": detected global pattern, input " + i);
            assertEquals(local, j.pattern(Sparsity.LOCAL), s + ": detected local pattern, input " + i);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void globalPatternIsTheUnionOverInputs(Sample s) {
        Random rnd = new Random(s.name().hashCode());
        List<double[]> base = values(s);
        List<List<double[]>> draws = new ArrayList<>();
        for (int d = 0; d < 6; d++) {
            draws.add(draw(s, base, rnd, -1, -1));
        }
        // The global pattern holds for the integer inputs' values too (embedding's indices, where's
        // condition): each value at every element, the rest random.
        for (int i = 0; i < base.size(); i++) {
            if (!s.inputs().get(i).dtype().isFloating()) {
                for (int v = 0; v < integerValues(s, i); v++) {
                    List<double[]> x = draw(s, base, rnd, -1, -1);
                    java.util.Arrays.fill(x.get(i), v);
                    draws.add(x);
                }
            }
        }
        Pattern[] union = new Pattern[s.inputs().size()];
        for (int d = 0; d < draws.size(); d++) {
            // One run per draw gives every input's Jacobian; rows against columns on two of them (the
            // test above checks both at the row's values), the cheaper of the two on the rest.
            Tensor[] run = apply(s, draws.get(d));
            for (int i = 0; i < s.inputs().size(); i++) {
                if (s.inputs().get(i).dtype().isFloating()) {
                    Pattern p = dense(run[0], run[i + 1], s + " input " + i, d < 2);
                    union[i] = union[i] == null ? p : union[i].union(p);
                }
            }
        }
        for (int i = 0; i < s.inputs().size(); i++) {
            if (!s.inputs().get(i).dtype().isFloating()) {
                continue;
            }
            // Each element made large in a draw of its own: its column of the Jacobian (one JVP) is what
            // that draw is for (amax's winner, ReLU's positive side).
            int rows = union[i].rows();
            int cols = union[i].cols();
            double[] seen = new double[rows * cols];
            for (int e = 0; e < base.get(i).length; e++) {
                Tensor[] run = apply(s, draw(s, base, rnd, i, e));
                double[] unit = new double[cols];
                unit[e] = 1;
                double[] column = GraphJacobian.of(run[0], run[i + 1]).jvp(unit);
                for (int r = 0; r < rows; r++) {
                    if (column[r] != 0) {
                        seen[r * cols + e] = 1;
                    }
                }
            }
            Pattern all = union[i].union(Pattern.nonzeros(seen, rows, cols));
            assertEquals(s.op().dependencies(i, shapes(s)), all, s + ": global pattern vs the union of dense Jacobians, input " + i);
        }
    }

    /**
     * How many values an integer input takes, {@code [0, n)}: the classes of cross_entropy's labels,
     * the rows an embedding's indices pick, 0 and 1 for where's mask. An op with a new integer input
     * says its values here.
     */
    private static int integerValues(Sample s, int input) {
        int[][] sh = shapes(s);
        return switch (s.op().name() + " " + input) {
            case "cross_entropy 1", "nll_loss 1" -> sh[0][sh[0].length >= 3 ? 1 : sh[0].length - 1]; // [N, C, d...]: axis 1
            case "embedding 0" -> sh[1][0];
            case "embedding_dense_backward 1" -> s.op().outputShape(sh, new DType[] {DType.FLOAT64, DType.INT64})[0];
            case "where 0", "masked_fill 1" -> 2;
            case "gather 1", "scatter_add 1", "index_select 1" -> gatherAxisSize(s);
            default -> throw new AssertionError(s + ": which values does integer input " + input + " take?");
        };
    }

    /** The size of the axis an index op picks along (its indices lie in [0, size)). */
    private static int gatherAxisSize(Sample s) {
        int[] x = s.inputs().get(0).shape();
        String label = s.op().label();
        int axis = Integer.parseInt(label.substring(label.indexOf("axis=") + 5, label.indexOf(')')));
        return x[axis < 0 ? axis + x.length : axis];
    }

    /**
     * Random values in the row's domain (positive where its values are; integer inputs in
     * {@code [0, integerValues)}, or the row's own in the draws that make one element large); element
     * e of input i made large.
     */
    private static List<double[]> draw(Sample s, List<double[]> base, Random rnd, int input, int element) {
        List<double[]> x = new ArrayList<>();
        for (int i = 0; i < base.size(); i++) {
            double[] b = base.get(i);
            if (!s.inputs().get(i).dtype().isFloating()) {
                int n = integerValues(s, i);
                x.add(input >= 0 || n == 0 ? b : rnd.ints(b.length, 0, n).asDoubleStream().toArray());
                continue;
            }
            boolean positive = b.length > 0 && java.util.Arrays.stream(b).allMatch(v -> v > 0);
            double[] v = positive ? rnd.doubles(b.length, 0.3, 2).toArray() : rnd.doubles(b.length, -2, 2).toArray();
            if (i == input) {
                v[element] += s.op().name().startsWith("min") ? -10 : 10; // the element a max (or min, minimum) picks
            }
            x.add(v);
        }
        return x;
    }

    /** The nonzeros of the Jacobian of y with respect to x, by rows (VJPs), checked equal to by columns (JVPs). */
    private static Pattern dense(Tensor y, Tensor x, String what) {
        return dense(y, x, what, true);
    }

    /** The same; unchecked, by the cheaper of rows and columns (as many VJPs as outputs, or JVPs as inputs). */
    private static Pattern dense(Tensor y, Tensor x, String what, boolean check) {
        GraphJacobian j = GraphJacobian.of(y, x);
        if (!check) {
            return (y.numel() <= x.numel() ? Jacobians.denseByRows(j) : Jacobians.denseByColumns(j)).nonzeros();
        }
        SparseMatrix rows = Jacobians.denseByRows(j);
        SparseMatrix cols = Jacobians.denseByColumns(j);
        assertClose(rows.toDense(), cols.toDense(), 1e-10, 1e-12, what + ": Jacobian by rows vs by columns");
        return rows.nonzeros();
    }
}
