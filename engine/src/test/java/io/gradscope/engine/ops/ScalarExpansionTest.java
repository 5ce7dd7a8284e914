package io.gradscope.engine.ops;

import static io.gradscope.engine.Assertions2.assertClose;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gradscope.engine.GradscopeException;
import io.gradscope.engine.scalar.ScalarExpansion;
import io.gradscope.engine.scalar.Value;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scalar Value engine against PyTorch: every op-table row of an op that writes out as scalars
 * (its {@link Op#scalarForm()}), expanded, with Σ out ⊙ u differentiated by Value.backward(), gives
 * PyTorch's value and VJP. Which ops expand is read off the ops, never listed here.
 */
class ScalarExpansionTest {

    /** The op of each spec as its first op-table row builds it (every op has rows: OpTableTest). */
    private static Map<String, Op> firstOfEach() {
        Map<String, Op> out = new java.util.LinkedHashMap<>();
        for (OpRow r : OpRow.load()) {
            out.putIfAbsent(r.op(), r.create());
        }
        return out;
    }

    /** The ops that write out as scalars, as they say. */
    static Set<String> expands() {
        Set<String> out = new TreeSet<>();
        firstOfEach().forEach((name, op) -> {
            if (op.scalarForm() != null) {
                out.add(name);
            }
        });
        return out;
    }

    static Stream<OpRow> rows() {
        // The scalar engine is micrograd's, for finite values: the NaN and ±inf rows are the tensor ops' business.
        return OpRow.load().stream().filter(r -> {
            if (!r.finite()) {
                return false;
            }
            ScalarForm f = r.create().scalarForm();
            // Matrix products write out for vectors and matrices, not batches.
            return f != null && (!(f instanceof ScalarForm.MatrixProduct) || r.inputs().stream().allMatch(a -> a.shape().length <= 2));
        });
    }

    @Test
    void theRowsCoverEveryExpandableOp() {
        Set<String> seen = new TreeSet<>();
        rows().forEach(r -> seen.add(r.op()));
        Set<String> expands = expands();
        assertTrue(expands.containsAll(Set.of("add", "matmul", "sum", "mean", "relu", "sigmoid")), "expands " + expands);
        assertTrue(seen.containsAll(expands), "rows for " + seen + ", expandable " + expands);
    }

    /** An elementwise function, and any op a program operator applies, writes out as scalars. */
    @Test
    void everyElementwiseOpAndOperatorExpands() {
        List<String> missing = new ArrayList<>();
        for (OpSpec s : OpSpecs.all()) {
            if (s.elementwise() || s.operator() != null) {
                Op op = firstOfEach().get(s.name());
                if (op == null || op.scalarForm() == null) {
                    missing.add(s.name());
                }
            }
        }
        assertTrue(missing.isEmpty(), "no scalar form: " + missing);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void scalarGraphGivesPyTorchsValueAndVjp(OpRow row) {
        Tensor[] in = row.inputs().stream().map(a -> a.tensor(DType.FLOAT64)).toArray(Tensor[]::new);
        ScalarExpansion e = ScalarExpansion.of(row.create(), in);
        double[] out = e.outputs().stream().mapToDouble(Value::data).toArray();
        assertClose(row.output().data(), out, 1e-12, 1e-14, row + ": value");
        Value loss = e.dot(row.upstream().data());
        loss.backward();
        for (int i = 0; i < in.length; i++) {
            double[] g = e.inputs().get(i).stream().mapToDouble(Value::grad).toArray();
            assertClose(row.grads().get(i).data(), g, 1e-12, 1e-14, row + ": gradient of input " + i);
        }
    }

    @Test
    void opsWithAttributesOrBatchesSayWhatIsCovered() {
        Tensor x = Tensor.of(new double[] {1, 2, 3, 4}, 2, 2);
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(GradscopeException.class,
                () -> ScalarExpansion.of(OpRegistry.create("softmax", java.util.Map.of()), x));
        assertTrue(e.getMessage().contains("matmul"), e.getMessage());
    }
}
